"""Layer 2, what is claimed: the registries of announcements and claims, their selectors, command-line
overrides and new-announcement scaffolds. Imports ``inputs`` and ``common``.
"""
