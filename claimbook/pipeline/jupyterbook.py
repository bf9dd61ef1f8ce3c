"""Compiling the HTML with jupyter-book, incrementally.

Sphinx keeps its environment in a work folder under ``_build/``; the staged book is copied into
it file by file, and only files whose bytes changed are rewritten (their times with them), so
Sphinx re-reads and rewrites only the pages that changed. Warnings stay errors. The finished
site is then copied out (what Sphinx left unchanged linked from the published site:
``copy_site``) and swapped in whole (``outputs.publish``).
"""

from __future__ import annotations

import errno
import filecmp
import functools
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

from claimbook.common.files import current_umask
from claimbook.common.paths import BOOK_DIR, CONFIG_FILE, TOC_FILE
from claimbook.pipeline.lifeline import DIE_WITH_PARENT

WORK_DIR = ".sphinx-work"
SITE_STAMP = ".claimbook-site.json"

# The book's pages are executed by the build and only rendered by jupyter-book
# (``execute_notebooks: off``): myst-nb's clients that execute pages, and with them jupyter-cache,
# SQLAlchemy and nbclient (a third of what a jupyter-book process imports, a quarter of a second
# of CPU), are never used. Its processes put modules in their place, which say so if one ever is.
# (The same preamble has them read the table of contents with libyaml: ``toc_read_by_libyaml``.)
WITHOUT_EXECUTION = r"""
def without_execution():
    import sys, types

    def refuse(*args, **kwargs):
        raise RuntimeError("jupyter-book executes no page of this book (execute_notebooks: off)")

    for module, client in (
        ("cache", "NotebookClientCache"),
        ("direct", "NotebookClientDirect"),
        ("inline", "NotebookClientInline"),
    ):
        stub = types.ModuleType(f"myst_nb.core.execute.{module}")
        setattr(stub, client, type(client, (), {"__init__": refuse}))
        sys.modules[stub.__name__] = stub


def toc_read_by_libyaml():
    # The table of contents (the build's own ``_toc.yml``, a line a page) is read on every build
    # by sphinx-external-toc with PyYAML's pure-Python loader: a tenth of a second at 360 pages.
    # PyYAML's C loader (libyaml, in its wheels) reads the same YAML into the same values.
    import yaml

    if not getattr(yaml, "__with_libyaml__", False):
        return
    import sphinx_external_toc.parsing as parsing

    class WithLibyaml:
        def __getattr__(self, name):
            return getattr(yaml, name)

        @staticmethod
        def safe_load(stream):
            return yaml.load(stream, Loader=yaml.CSafeLoader)

    parsing.yaml = WithLibyaml()
"""

# A jupyter-book process that imports itself and the heaviest Sphinx extensions while the
# chapters execute, then waits for the command line of the build on its standard input (an
# empty line: nothing to do).
_WARM_BUILDER = (
    DIE_WITH_PARENT
    + WITHOUT_EXECUTION
    + """
import gc, importlib, json, os, sys, traceback

die_with_parent(int(sys.argv[1]))  # the build: Sphinx never writes on after it
# What its imports (and, prepared, Sphinx's saved environment) make lives until the process
# ends: no collection until the build starts (``begin``), then none going through all that.
gc.disable()


def begin():
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)  # (the claimbook command's own pace: ``claimbook.__main__``)
    gc.enable()


without_execution()
toc_read_by_libyaml()
import tempfile

# Its temporary files (the traceback of a crash) in the build's staging folder, even on a full
# disk (Python would otherwise try another folder, /tmp, when this one cannot take a test file).
tempfile.tempdir = sys.argv[2]
from jupyter_book.cli.main import main
for name in ("sphinx.application", "myst_nb.sphinx_ext", "sphinx_book_theme", "sphinxcontrib.bibtex"):
    try:
        importlib.import_module(name)
    except Exception:  # only a head start: the build imports what it needs anyway
        pass


def compile_selectors():
    # The theme reads each page's navigation with CSS selectors, whose tokenizer compiles a
    # hundred regular expressions the first time (a tenth of a second on the first page written):
    # compiled here, while the pages execute.
    try:
        import soupsieve

        soupsieve.compile("li.toctree-l1 > details, details > a.reference, details > p.caption, .toc-h1")
    except Exception:  # only a head start
        pass


if len(sys.argv) > 3:
    # Prepared: Sphinx's application is made now (its configuration, extensions and saved
    # environment read while the pages execute); it builds once told to ("build"), after the
    # build has put the new sources in place, and ends without building on anything else.
    from sphinx.application import Sphinx

    build = Sphinx.build

    def build_when_told(app, *args, **kwargs):
        compile_selectors()
        # What the application holds by now (its environment: every page's table of contents and
        # references, hundreds of thousands of objects) lives until the process ends: frozen, the
        # build's full garbage collections no longer walk it (a tenth of a second at 360 pages).
        begin()
        if sys.stdin.readline().strip() != "build":
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
        return build(app, *args, **kwargs)

    Sphinx.build = build_when_told
    line = sys.argv[3]
else:
    line = sys.stdin.readline()
    begin()
code = 0
if line.strip():
    try:
        main(args=json.loads(line), prog_name="jupyter-book")
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
# Sphinx has written and closed every file: ending without the interpreter's teardown saves the
# build a third of a second (the build waits for this process to end, with work or without).
sys.stdout.flush()
sys.stderr.flush()
os._exit(code)
"""
)


class HtmlError(RuntimeError):
    """jupyter-book failed or warned; the message has its last warnings."""


# In the staging folder (never synced into Sphinx's sources): the builder's temporary folder,
# where Sphinx saves the traceback of a crash; it goes with the staging folder.
TEMPORARY = ".claimbook-sphinx-tmp"


def start_builder(staging: Path, work: Path | None = None) -> subprocess.Popen:
    """Start a jupyter-book process early, so its imports overlap the chapters' execution; its
    temporary files go in the build's ``staging`` folder (nothing of it stays in /tmp).

    Given Sphinx's ``work`` folder, and where that folder holds a whole environment from an
    earlier build, the process is prepared: Sphinx's application is made at once too (its
    configuration and saved environment read), and it builds once ``_compile`` has synced the
    new sources and found the configuration and table of contents it read unchanged."""
    temporary = staging / TEMPORARY
    temporary.mkdir(exist_ok=True)
    prepared = work is not None and _environment_kept(work)
    command = [sys.executable, "-c", _WARM_BUILDER, str(os.getpid()), str(temporary)]
    if prepared:
        command.append(json.dumps(_arguments(work)))
    builder = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temporary)},  # (and for what it starts)
    )
    builder.prepared_with = _read_by_sphinx(work) if prepared else None
    return builder


def _environment_kept(work: Path) -> bool:
    """Whether Sphinx's work folder holds the environment of a build that ran to its end."""
    return (work / "_build" / ".doctrees" / "environment.pickle").is_file() and not (
        work / RUNNING_STAMP
    ).exists()


def _read_by_sphinx(folder: Path) -> tuple:
    """What a prepared Sphinx reads as it starts: the book's configuration and table of
    contents (their bytes), and which pages the book has."""
    return tuple(
        (folder / name).read_bytes() if (folder / name).is_file() else None
        for name in (CONFIG_FILE, TOC_FILE)
    ) + (frozenset(documents(folder)),)


def _arguments(work: Path) -> list[str]:
    """jupyter-book's command line for the book in Sphinx's ``work`` folder."""
    return [
        "build",
        str(work),
        "--toc",
        str(work / TOC_FILE),
        "--config",
        str(work / CONFIG_FILE),
        *ARGUMENTS,
    ]


def stop_builder(builder: subprocess.Popen | None) -> None:
    """End a builder that was given nothing to do."""
    if builder is not None and builder.poll() is None:
        try:
            builder.communicate("\n", timeout=30)
        except (subprocess.TimeoutExpired, ValueError, OSError):  # ValueError: it was given its work
            kill_builder(builder)


def kill_builder(builder: subprocess.Popen | None) -> None:
    """End a builder at once, whatever it is doing (a failed or interrupted build)."""
    if builder is not None and builder.poll() is None:
        builder.kill()
        builder.wait()


def book_files(root: Path) -> list[Path]:
    """The sources jupyter-book reads from a book laid out as the project is: its configuration,
    its table of contents and what is under ``book/`` (the build's staging folders aside), relative
    to ``root``."""
    files = [Path(CONFIG_FILE), Path(TOC_FILE)]
    for path in sorted((root / BOOK_DIR).rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and not any(
            part.startswith((".claimbook-staging-", ".claimbook-retired-")) or part == "_build"
            for part in relative.parts
        ):
            files.append(relative)
    return [relative for relative in files if (root / relative).is_file()]


def sync(source: Path, work: Path) -> int:
    """Make ``work`` a copy of the book in ``source``, rewriting only files whose bytes differ and
    removing files ``source`` no longer has (``work`` is the build's own folder); the number
    written."""
    written = 0
    work.mkdir(parents=True, exist_ok=True)
    files = book_files(source)
    wanted = set(files) | {parent for relative in files for parent in relative.parents}
    for relative in files:
        path, target = source / relative, work / relative
        if target.is_file() and filecmp.cmp(path, target, shallow=False):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        os.utime(target)  # a changed file is newer than Sphinx's environment
        written += 1
    for path in sorted(_sources_in(work), reverse=True):
        relative = path.relative_to(work)
        if relative in wanted:
            continue
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    return written


def _sources_in(folder: Path) -> list[Path]:
    """Every file and folder under ``folder`` but its ``_build`` (Sphinx's output: the site and
    its doctrees, thousands of files no source question needs walked). A link to a folder is
    listed, not followed."""
    found = []
    for directory, folders, files in os.walk(folder):
        if directory == str(folder):
            folders[:] = [name for name in folders if name != "_build"]
            files = [name for name in files if name != "_build"]  # (whatever it is, Sphinx's)
        found += [Path(directory, name) for name in (*folders, *files)]
    return found


def documents(folder: Path) -> set[Path]:
    """The pages of a book's sources (not its build output)."""
    if not folder.is_dir():
        return set()
    return {path.relative_to(folder) for path in _sources_in(folder) if path.name.endswith((".md", ".ipynb"))}


# Left in the work folder while Sphinx runs: a work folder that still has it was being written
# when its build was killed, and its environment is not trusted.
RUNNING_STAMP = ".claimbook-sphinx-running"
ARGUMENTS = ["--builder", "html", "-W", "-n", "--keep-going", "--quiet"]


def work_folder(target: Path) -> Path:
    """Sphinx's own copy of the sources of the book built into ``target``, kept between builds."""
    return target / "_build" / WORK_DIR


def compile_book(book: Path, work_root: Path, builder: subprocess.Popen | None = None) -> Path:
    """Compile the staged ``book`` (its root: ``_config.yml``, ``_toc.yml``, ``book/``) in the
    work folder under ``work_root``; the HTML folder. On a full disk (here or in Sphinx) the
    work folder goes: it only holds what the next build can make again."""
    work = work_root / WORK_DIR
    try:
        return _compile(book, work, builder)
    except OSError as exc:
        if exc.errno not in _SYSTEM_ERRNOS:
            raise
        raise _system_failure(exc, work) from None


def copy_site(
    html: Path, target: Path, work_root: Path, stamp: str, assembly: str | None, current: Path | None = None
) -> None:
    """Copy the finished site ``html`` (in Sphinx's work folder under ``work_root``) to ``target``
    in the staging folder, stamped with what it was made from and when it was copied; at the
    first failure the partial copy goes, and on a failure of the system (a full disk) Sphinx's
    work folder too, said in the one line a full disk in Sphinx gives.

    A file Sphinx has not written since the ``current`` site was copied from it is linked from
    that site rather than copied again (``_linked``): a rebuild that rewrote a few pages copies
    those, not the site's tens of megabytes. (``current`` None: everything is copied.)"""
    copied = time.time_ns()  # (before any file is read: what is written after it is newer)
    since = None if current is None else read_stamp(current, "copied")
    real_current = None
    if isinstance(since, int) and current is not None and not current.is_symlink():
        real_current = os.path.realpath(current)
    mode = 0o666 & ~current_umask()
    left_out = _theme_catalogs(html)
    try:
        target.mkdir()
        for path in sorted(html.rglob("*")):  # a folder before what it holds
            relative = path.relative_to(html)
            copy = target / relative
            if left_out is not None and relative.is_relative_to(left_out):
                continue
            if path.is_dir():
                copy.mkdir()
            elif real_current is None or not _linked(path, real_current, relative, copy, since, mode):
                shutil.copy2(path, copy)
        write_stamp(target, stamp, assembly, copied)
    except OSError as exc:
        shutil.rmtree(target, ignore_errors=True)
        if exc.errno not in _SYSTEM_ERRNOS:
            raise
        raise _system_failure(exc, work_root / WORK_DIR) from None


# The theme's translations of its own words: Sphinx copies the theme's static folder whole, but a
# page is translated as it is written, and no page or script of the site reads them.
THEME_CATALOGS = Path("_static", "locales")


def _theme_catalogs(html: Path) -> Path | None:
    """``THEME_CATALOGS``, left out of the published site where every file Sphinx put there is
    one of the installed theme's catalogs (93 folders a copy would make and a rebuild remove);
    None where the folder holds anything else (a book's own static file there is published)."""
    import importlib.util

    folder = html / THEME_CATALOGS
    spec = importlib.util.find_spec("sphinx_book_theme")
    if not folder.is_dir() or spec is None or spec.origin is None:
        return None
    theme = Path(spec.origin).parent / "theme" / "sphinx_book_theme" / "static" / "locales"
    made = {path.relative_to(folder) for path in folder.rglob("*") if not path.is_dir()}
    ours = all((theme / relative).is_file() and not (folder / relative).is_symlink() for relative in made)
    return THEME_CATALOGS if made and ours else None


def _linked(made: Path, current: str, relative: Path, copy: Path, since: int, mode: int) -> bool:
    """Whether ``copy`` is now a link to the published site's file (in the folder ``current``,
    its real path): only where Sphinx has not written ``made`` since that site was copied (its
    change time, which no one can set back, is older than ``since``) and the published file is
    still the copy made then: a regular file of this user's, reached through no link, its only
    name, the same size and modification time as ``made``, with the mode a new file gets under
    the umask (the build changes nothing of it). The published site is never written in place (a
    build puts a new one beside it and swaps), so the two names keep the same bytes."""
    published = os.path.join(current, relative)
    try:
        mine, theirs = made.stat(), os.lstat(published)
        if mine.st_ctime_ns >= since or not stat.S_ISREG(theirs.st_mode):
            return False
        if (theirs.st_uid, theirs.st_nlink, stat.S_IMODE(theirs.st_mode)) != (os.geteuid(), 1, mode):
            return False
        if (mine.st_size, mine.st_mtime_ns) != (theirs.st_size, theirs.st_mtime_ns):
            return False
        if os.path.realpath(published) != published:  # a folder on the way is a link
            return False
        os.link(published, copy, follow_symlinks=False)
    except OSError:  # (a file system without links, another device: the file is copied)
        return False
    return True


def _compile(book: Path, work: Path, builder: subprocess.Popen | None) -> Path:
    before = documents(work)
    sync(book, work)
    afresh = before != documents(work) or (work / RUNNING_STAMP).exists()
    if afresh:
        # Sphinx keeps the pages of documents that are gone (a removed claim's), and does not
        # rewrite every page's navigation for one added: when the book's pages are not the same
        # ones (or a killed build left Sphinx's files half written), they start afresh.
        shutil.rmtree(work / "_build", ignore_errors=True)
    prepared = getattr(builder, "prepared_with", None)
    if prepared is not None and (afresh or _read_by_sphinx(work) != prepared):
        kill_builder(builder)  # it read what the book no longer is: a process that reads it now
        builder, prepared = None, None
    builder = builder if builder is not None and builder.poll() is None else start_builder(book)
    (work / RUNNING_STAMP).write_bytes(b"")
    try:
        told = "build" if prepared is not None else json.dumps(_arguments(work))
        stdout, stderr = builder.communicate(told + "\n")
    except BaseException:
        kill_builder(builder)
        raise
    if builder.returncode != 0:
        raise _failure(builder.returncode, stdout, stderr, work)
    (work / RUNNING_STAMP).unlink()
    output = work / "_build" / "html"
    copy_static(book, output)
    return output


def copy_static(book: Path, output: Path) -> None:
    """The book's own static files (its styles, the chart bundle) copied into the site
    ``output``: an incremental Sphinx run with no page to write copies none, and the site must
    always have their latest version."""
    for static in sorted((book / BOOK_DIR / "_static").glob("*")):
        if static.is_file():
            (output / "_static").mkdir(parents=True, exist_ok=True)
            shutil.copy2(static, output / "_static" / static.name)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_SYSTEM_ERROR = re.compile(r"\[Errno (\d+)\] ([^:\n]+?)(?:: '([^'\n]*)')?(?:$|\n|\))", re.MULTILINE)
# Failures of the system, not of the book: said in one line, and Sphinx's half-written files go.
_SYSTEM_ERRNOS = {
    errno.ENOSPC,
    errno.EDQUOT,
    errno.EMFILE,
    errno.ENFILE,
    errno.EIO,
    errno.EROFS,
    errno.ENOMEM,
}


def _failure(code: int, stdout: str, stderr: str, work: Path) -> HtmlError:
    """Why jupyter-book failed: one line for a failure of the system (a full disk: the path and
    the cause; Sphinx's work files are removed, they only fill the disk), else its last warnings,
    without the terminal's colours."""
    text = _ANSI.sub("", stderr + stdout)
    for match in _SYSTEM_ERROR.finditer(text):
        if int(match.group(1)) in _SYSTEM_ERRNOS:
            shutil.rmtree(work, ignore_errors=True)
            return _system_line(match.group(3) or work, match.group(2).strip())
    (work / RUNNING_STAMP).unlink(missing_ok=True)  # it ran to its end: its environment is whole
    output = [line for line in text.splitlines() if line.strip()]
    problems = [line for line in output if "WARNING" in line or "ERROR" in line or "Error" in line]
    shown = "\n  ".join((problems or output)[-15:])
    return HtmlError(f"jupyter-book build failed (exit {code}):\n  {shown}")


def _system_failure(exc: OSError, work: Path) -> HtmlError:
    """A failure of the system met by the build itself as it copies the site in or out: Sphinx's
    work folder goes (it only fills the disk), said as Sphinx's own failure is."""
    shutil.rmtree(work, ignore_errors=True)
    where = exc.filename2 or exc.filename or work  # a copy's destination, where the disk is full
    return _system_line(where, exc.strerror or str(exc))


def _system_line(where, cause: str) -> HtmlError:
    return HtmlError(f"jupyter-book could not write the HTML: {where}: {cause}")


# The book's own Sphinx extensions (``claimbook/*/sphinx_*.py``): what they write is part of the site.
PACKAGE = Path(__file__).resolve().parents[1]
# What else writes the site: jupyter-book, the Sphinx extensions it loads for the book's
# configuration (a test keeps this list whole), and what they render with.
SITE_DISTRIBUTIONS = (
    "jupyter-book",
    "sphinx",
    "sphinx-togglebutton",
    "sphinx-copybutton",
    "myst-nb",
    "sphinx-thebe",
    "sphinx-comments",
    "sphinx-external-toc",
    "sphinx-design",
    "sphinx-book-theme",
    "pydata-sphinx-theme",
    "docutils",
    "myst-parser",
    "markdown-it-py",
    "mdit-py-plugins",
    "jinja2",
    "pygments",
    "nbformat",
    "beautifulsoup4",
)


@functools.cache
def site_software() -> str:
    """The Python and the installed versions of ``SITE_DISTRIBUTIONS`` on this process's path,
    from the names of their metadata folders (``name-version.dist-info``): one listing of each
    folder of the path, under a millisecond, where importlib.metadata, reading each
    distribution's metadata file, took 17 ms of every build."""
    wanted = {_normal(name) for name in SITE_DISTRIBUTIONS}
    found = set()
    for folder in dict.fromkeys(sys.path):
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith((".dist-info", ".egg-info")):
                distribution, _, version = name.rpartition(".")[0].partition("-")
                if _normal(distribution) in wanted:
                    found.add(f"{_normal(distribution)}=={version}")
    return " ".join([sys.version.split()[0], *sorted(found)])


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def site_digest(book: Path, package: Path = PACKAGE) -> str:
    """What the HTML is made from: every staged source file (the cache file aside), the code of
    the book's Sphinx extensions in ``package`` and the versions of the software that writes the
    site (``site_software``): a site made by other code is made again."""
    import hashlib

    digest = hashlib.sha256(site_software().encode())
    for relative in book_files(book):
        if relative.name != "cache.json":
            digest.update(relative.as_posix().encode())
            digest.update((book / relative).read_bytes())
    for extension in sorted(package.glob("*/sphinx_*.py")):
        digest.update(b"\0" + extension.relative_to(package).as_posix().encode() + b"\0")
        digest.update(extension.read_bytes())
    return digest.hexdigest()


def read_stamp(html: Path, key: str = "site"):
    """What a site was made from: ``site``, the digest of its staged sources, or ``assembly``, the
    digest of the book build that made them; or ``copied``, when it was copied out of Sphinx's
    folder (nanoseconds)."""
    try:
        return json.loads((html / SITE_STAMP).read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None


def write_stamp(html: Path, stamp: str, assembly: str | None = None, copied: int | None = None) -> None:
    """The site's stamp: what it was made from, and when it was copied out of Sphinx's folder."""
    (html / SITE_STAMP).write_text(json.dumps({"site": stamp, "assembly": assembly, "copied": copied}) + "\n")
