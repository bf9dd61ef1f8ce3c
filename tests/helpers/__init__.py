"""What the test files share, imported as ``from tests.helpers.MODULE import ...``.

- ``project``: the project's root, a copy of it a test may change, a command run in a copy, a build.
- ``clirun``: the command line run in the test's own process, or in a child forked with a copy's package.
- ``errors``: the one assertion that a command failed with exactly one ``error:`` line.
- ``summaries``: small MLCommons-style summary files, honest or hostile.
- ``enginekit``: small worlds (results and claims) for the engine's tests.
- ``registries``: registries written by an attacker; ``analyst_registry``: one an analyst could add.
- ``own_registries``: the project's own announcements, listed in one place.
- ``treehash``: snapshots of folder trees, to prove what a command changed and what it did not.

Nothing here is imported by this file, and ``own_registries`` imports nothing of ``claimbook``:
the independent recomputations (``tests/book/test_recompute.py``) import it and stay package-free.
"""
