"""Putting a made book in place: its HTML compiled with jupyter-book (unless the current site
was made from this very staged book), then every folder it replaces swapped in one transaction
(``claimbook.pipeline.outputs.publish``), the table of contents first; a file the build did not
write is carried over, and a table of contents someone changed is never replaced.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from claimbook.common.errors import UsageError
from claimbook.common.paths import BOOK_DIR, CONFIG_FILE, GENERATED_DIR, TOC_FILE, TOC_HEADER
from claimbook.pipeline import digests, jupyterbook, outputs
from claimbook.pipeline.cache import written_toc
from claimbook.pipeline.request import BuildRequest


def check_toc(target: Path, new: Path) -> None:
    """The table of contents is the build's own, written from the registries: one changed since
    the build wrote it (its digest is in the cache) is someone's work, and is not replaced (unless
    it already says what the new one says)."""
    toc = target / TOC_FILE
    if not toc.is_file() or toc.read_bytes() == new.read_bytes():
        return
    written = written_toc(target)
    if written is None:  # no cache (deleting it only costs time): the build's own says so at its top
        with open(toc, encoding="utf-8", errors="replace") as stream:
            if stream.readline().rstrip("\n") == TOC_HEADER:
                return
    if digests.file_digest(toc) != written:
        raise UsageError(
            f"{toc}: changed since the build wrote it; the build writes it from data/chapters.yaml and "
            "the registries in data/claims/, so restore it (git checkout) or remove it to have it written "
            "again (nothing was written)"
        )


def compile_html(request: BuildRequest, staging: Path, builder, assembly: str | None) -> Path | None:
    """The new HTML, in ``staging``; None if the staged book is byte for byte what the current
    HTML was made from (the builder is then stopped, and the current site's stamp says it comes
    from this book)."""
    from claimbook.pipeline.assets import write_vega_bundle

    root, target, report = request.root, request.target, request.report
    # The bundle takes seconds to make: made once per target (an --out book never writes into the
    # project), copied from the project's own when it has one.
    assets = target / "_build" / "assets"
    project_bundle = root / "_build" / "assets" / "claimbook-vega.js"
    if target != root and project_bundle.is_file() and not (assets / project_bundle.name).is_file():
        assets.mkdir(parents=True, exist_ok=True)
        shutil.copy2(project_bundle, assets / project_bundle.name)
    bundle = write_vega_bundle(assets)
    static = staging / BOOK_DIR / "_static"
    static.mkdir(parents=True, exist_ok=True)
    shutil.copy2(bundle, static / bundle.name)
    stamp = jupyterbook.site_digest(staging)
    current = target / "_build" / "html"
    if current.is_dir() and jupyterbook.read_stamp(current) == stamp:
        report("HTML is up to date")
        jupyterbook.stop_builder(builder)
        if (
            jupyterbook.read_stamp(current, "assembly") != assembly
        ):  # the same site, now known to come from this book
            jupyterbook.write_stamp(current, stamp, assembly, jupyterbook.read_stamp(current, "copied"))
        return None
    report("compiling HTML with jupyter-book")
    compiled = jupyterbook.compile_book(staging, target / "_build", builder)
    fresh = staging / "html"
    # (--force: every file copied afresh, none linked from the current site)
    jupyterbook.copy_site(
        compiled, fresh, target / "_build", stamp, assembly, None if request.force else current
    )
    return fresh


def publish_book(request: BuildRequest, staging: Path, html_folder: Path | None) -> None:
    """Put the new book in place: every folder it replaces in one transaction
    (``outputs.publish``). A file someone else put in a folder the build replaces (one its
    manifest does not list) is carried into the new version first; each new folder records in
    its manifest what the build wrote there; every file written follows the user's umask."""
    target, report = request.target, request.report
    build_dir = target / "_build"
    check_toc(target, staging / TOC_FILE)
    if request.to_out:
        pairs = [(staging / BOOK_DIR, target / BOOK_DIR), (staging / "data", target / "data")]
        files = [CONFIG_FILE, TOC_FILE]
    else:
        pairs = [(staging / BOOK_DIR / GENERATED_DIR, target / BOOK_DIR / GENERATED_DIR)]
        files = [TOC_FILE]
    if html_folder is not None:
        pairs.append((html_folder, build_dir / "html"))
    pairs = [(new, old) for new, old in pairs if new.is_dir()]
    kept = []
    for new, old in pairs:
        ours = outputs.read_manifest(old)
        if ours is None and old.is_relative_to(build_dir) and old.is_dir():
            ours = {path.relative_to(old).as_posix() for path in old.rglob("*")}  # _build/ is ours
        strict = request.to_out and not old.is_relative_to(build_dir)  # an --out book's sources
        try:
            carried = outputs.carry_over(old, new, ours, strict=strict)
        except outputs.NotTheBuilds as exc:
            shown = ", ".join(f"{old.relative_to(target).as_posix()}/{name}" for name in exc.names[:5])
            more = f" and {len(exc.names) - 5} more" if len(exc.names) > 5 else ""
            raise UsageError(
                f"{target}: {shown}{more}: not as the build wrote {'them' if len(exc.names) > 1 else 'it'} "
                "(edited, or put there by hand), and the build writes a file there; move it out of the "
                "book's folder (the book is built from the project's data), then build again (nothing was "
                "replaced)"
            ) from None
        kept += [f"{old.relative_to(target).as_posix()}/{name}" for name in carried]
        outputs.write_manifest(new, exclude=set(carried), with_digests=strict)
        outputs.follow_umask(new)
    if kept:
        report(f"kept {len(kept)} file(s) the build did not make: {', '.join(kept[:5])}")
    # The table of contents goes in the same transaction as the pages it names (a kill at any
    # moment leaves both old, or a journal that puts both new); one that would not change is
    # left alone, its time with it.
    for name in files:
        outputs.follow_umask(staging / name)
        current = target / name
        if not (current.is_file() and current.read_bytes() == (staging / name).read_bytes()):
            pairs.append((staging / name, current))
    outputs.publish(pairs, build_dir)
