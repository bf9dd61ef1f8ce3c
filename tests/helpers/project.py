"""The project under test: its root, a copy of it a test may change, the command line run in a
copy with the copy's own package, and a build of the book."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_SUMMARY = ROOT.parent / "shared" / "mlperf" / "v6.1" / "summary.csv"


def build_book(out: Path, *extra) -> Path:
    """``python -m claimbook build --out OUT [extra...]``; the built site's folder."""
    command = [sys.executable, "-m", "claimbook", "build", "--out", str(out), *map(str, extra)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, f"{' '.join(command[1:])} failed:\n{done.stderr[-4000:]}"
    site = out / "_build" / "html"
    assert (site / "book" / "index.html").is_file(), f"{site} has no book/index.html"
    return site


def project_copy(target: Path) -> Path:
    """The project's tracked files (and this checkout's package and tests as they are now),
    copied to ``target``: a project a test may change."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    names = [name for name in listed.stdout.decode().split("\0") if name] if listed.returncode == 0 else []
    for name in names:
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    for folder in ("claimbook", "notebooks", "book", "data"):  # what is not committed yet too
        shutil.copytree(
            ROOT / folder,
            target / folder,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("__pycache__", "_build", ".claimbook-*"),
        )
    return target


def run_copy(copy: Path, *args, timeout: float = 900) -> subprocess.CompletedProcess:
    """``python -m claimbook ARGS`` run from a project copy, with the copy's own package."""
    env = {key: value for key, value in os.environ.items() if key != "CLAIMBOOK_BOOK_ROOT"}
    env["PYTHONPATH"] = str(copy)
    return subprocess.run(
        [sys.executable, "-m", "claimbook", *map(str, args)],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
