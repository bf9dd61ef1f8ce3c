"""A copy of the project changed on purpose (see ``test_faults.py`` for the copy and its code): a
user's files in ``book/generated`` survive a build with ``_build/`` deleted, and a registry added
then removed gives its claim pages, then takes them away, in the committed book, the ledger, where
the announcements meet, and the site. A file of its own, so that another test worker runs it
while the kills of ``test_faults.py`` run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from tests.pipeline.test_faults import copy_of_the_project


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    yield from copy_of_the_project(tmp_path_factory)


def test_a_user_s_files_in_the_committed_book_survive_a_build_without_build_folder(copy):
    """book/generated is the build's, but a file a user put there is not: a build that replaces the
    folder keeps it, even when _build/ (and whatever it knew) is gone. (Changes the copy's book.)"""
    mine = {
        copy.root / "book" / "generated" / "mynotes.md": "# My notes\n",
        copy.root / "book" / "generated" / "amd-v6.1" / "mine.txt": "mine\n",
    }
    for path, text in mine.items():
        path.write_text(text)
    shutil.rmtree(copy.root / "_build", ignore_errors=True)
    page = copy.root / "book" / "howto.md"  # so that the book is assembled and book/generated replaced
    page.write_text(page.read_text() + "\nA line so that book/claims is replaced.\n")
    done = copy.run("build", "--no-html")
    assert done.returncode == 0, done.stderr
    assert "kept 2 file(s) the build did not make" in done.stderr, done.stderr
    lost = [str(path) for path, text in mine.items() if not path.is_file() or path.read_text() != text]
    assert not lost, f"the build deleted the user's files {lost}"
    manifest = json.loads((copy.root / "book" / "generated" / ".claimbook-manifest.json").read_text())
    assert "mynotes.md" not in manifest and "scorecard.json" in manifest
    for path in mine:
        path.unlink()


def test_pages_follow_the_registries(copy):
    """Add a registry and build (without --force): the new claim has its page, the ledger and the
    page where the announcements meet list it, the site links it. Remove it and build: its pages
    are gone from the committed book and from the site, and nothing lists it."""
    amd = yaml.safe_load((copy.root / "data" / "claims" / "amd-v6.1.yaml").read_text())
    # A copy of AMD's first scaling claim: it stands on AMD's own results, so the two meet.
    scaling = next(claim for claim in amd["claims"] if claim["kind"] == "scaling")
    claim = dict(scaling, id="acme-gptoss-scaling-72", title="Acme's copy of AMD's scaling claim")
    header = dict(amd["announcement"], id="acme-v6.1", title="Acme's post")
    registry = copy.root / "data" / "claims" / "acme-v6.1.yaml"
    registry.write_text(yaml.safe_dump({"announcement": header, "claims": [claim]}, sort_keys=False))
    claims, site = copy.root / "book" / "generated", copy.root / "_build" / "html"
    page = Path("acme-v6.1") / "acme-gptoss-scaling-72"

    def listed() -> dict[str, bool]:
        scorecard = json.loads((claims / "scorecard.json").read_text())
        return {
            "page": (claims / page.with_suffix(".ipynb")).is_file(),
            "announcement page": (claims / "acme-v6.1.md").is_file(),
            "ledger": any(row["claim"] == claim["id"] for row in scorecard),
            "where they meet": claim["id"] in (claims / "where_they_meet.ipynb").read_text(),
            "site page": (site / "book" / "generated" / page.with_suffix(".html")).is_file(),
            "site announcement": (site / "book" / "generated" / "acme-v6.1.html").is_file(),
            "site navigation": "acme-v6.1.html" in (site / "book" / "index.html").read_text(),
            "site where they meet": claim["id"]
            in (site / "book" / "generated" / "where_they_meet.html").read_text(),
        }

    try:  # (both builds in children forked from this process: no second of imports)
        added = copy.forked("build")
        assert added.returncode == 0, added.stderr
        assert all(listed().values()), listed()
    finally:
        registry.unlink()
    removed = copy.forked("build")
    assert removed.returncode == 0, removed.stderr
    assert not any(listed().values()), listed()
    assert not (claims / "acme-v6.1").exists() and not (site / "book" / "generated" / "acme-v6.1").exists()
