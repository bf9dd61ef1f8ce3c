"""The project's own announcements, listed in this one place.

Tests that recompute claims one by one (``test_recompute``) or name them are about these
registries only: an announcement an analyst adds (any other file of ``data/claims``) never makes
them fail, and is covered by the generic tests (``test_every_claim``), which need no code per
claim. Nothing of ``claimbook`` is imported here: ``test_recompute`` reads the data on its own.
"""

from __future__ import annotations

from pathlib import Path

OWN_ANNOUNCEMENTS = ("nvidia-v6.1", "amd-v6.1")  # in the order of their dates


def own_registry_files(claims_dir: Path) -> list[Path]:
    """The registry files of the project's own announcements (each must be there)."""
    files = [claims_dir / f"{announcement}.yaml" for announcement in OWN_ANNOUNCEMENTS]
    missing = [path.name for path in files if not path.is_file()]
    assert not missing, f"the project's own registries are missing: {missing}"
    return files


def own_rows(rows: list[dict]) -> list[dict]:
    """The scorecard rows of the project's own announcements."""
    return [row for row in rows if row.get("announcement") in OWN_ANNOUNCEMENTS]


def own_order(announcements) -> list[str]:
    """The project's own announcements among ``announcements``, in the order given."""
    return [name for name in announcements if name in OWN_ANNOUNCEMENTS]
