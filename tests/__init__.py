"""The test suite, a package so that its files import the helpers as ``tests.helpers``."""
