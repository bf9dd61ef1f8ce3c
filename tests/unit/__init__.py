"""The unit tier: the package's functions on data the tests build or the committed data, no build, kernel, Sphinx or browser (`make test-quick`)."""
