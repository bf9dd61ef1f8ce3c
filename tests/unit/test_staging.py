"""Staging a build's pages (claimbook.pipeline.staging.seed_generated): the pages of the book it
replaces, as second names of the same files where it can, as copies where it cannot or must."""

from __future__ import annotations

import errno
import os

import pytest

from claimbook.pipeline import staging
from claimbook.pipeline.cache import CACHE_NAME


@pytest.fixture
def previous(tmp_path):
    folder = tmp_path / "book" / "generated"
    (folder / "amd-v6.1").mkdir(parents=True)
    (folder / "front.ipynb").write_text("front")
    (folder / "amd-v6.1" / "claim.ipynb").write_text("claim")
    (folder / CACHE_NAME).write_text("{}")
    (folder / "ledger.md").write_text("written anew by each build")
    os.symlink(folder / "front.ipynb", folder / "linked.ipynb")  # never followed
    return folder


def _pages(folder):
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())


def test_pages_are_linked_and_the_cache_copied(previous, tmp_path):
    staged = tmp_path / "staging"
    staging.seed_generated(previous, staged)
    assert _pages(staged) == ["amd-v6.1/claim.ipynb", CACHE_NAME, "front.ipynb"]
    assert (staged / "front.ipynb").samefile(previous / "front.ipynb")
    assert (staged / "amd-v6.1" / "claim.ipynb").samefile(previous / "amd-v6.1" / "claim.ipynb")
    assert not (staged / CACHE_NAME).samefile(previous / CACHE_NAME)  # rewritten by the build


@pytest.mark.parametrize("why", [errno.EXDEV, errno.EPERM, errno.EMLINK])
def test_a_page_that_cannot_be_linked_is_copied(previous, tmp_path, monkeypatch, why):
    def refused(source, destination):
        raise OSError(why, os.strerror(why))

    monkeypatch.setattr(os, "link", refused)
    staged = tmp_path / "staging"
    staging.seed_generated(previous, staged)
    assert (staged / "front.ipynb").read_text() == "front"
    assert not (staged / "front.ipynb").samefile(previous / "front.ipynb")


def test_without_links_every_page_is_a_copy(previous, tmp_path):
    staged = tmp_path / "staging"
    staging.seed_generated(previous, staged, link=False)
    assert _pages(staged) == ["amd-v6.1/claim.ipynb", CACHE_NAME, "front.ipynb"]
    assert not any((staged / name).samefile(previous / name) for name in _pages(staged))
