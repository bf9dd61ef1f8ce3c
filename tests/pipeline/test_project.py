"""The project as its users expect it: a jupyter-book 1.x project (``_config.yml`` and ``_toc.yml``
at the root, so ``jupyter-book build .`` renders the same book as ``make book``), a complete
installable package with a ``claimbook`` command, and a publishing workflow that actionlint
passes."""

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from html.parser import HTMLParser
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from claimbook.pipeline.assemble import committed_toc
from tests.helpers.clirun import in_copy
from tests.helpers.errors import one_error_line
from tests.helpers.project import ROOT

BIN = Path(sys.executable).parent
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def fresh_clone(target: Path) -> Path:
    """The project's files as a clone has them: what git tracks (or would: new files not ignored),
    nothing the build or the environment made."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


# -- the jupyter-book layout ---------------------------------------------------------------------
def _toc_files(entries):
    for entry in entries:
        yield entry["file"]
        yield from _toc_files(entry.get("sections", []))


def test_the_committed_toc_is_current_and_lists_every_page():
    text = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert text == committed_toc(ROOT), "the table of contents is stale: run `make book` and commit _toc.yml"
    # Independently of the build: every page on disk is in it once, and it names nothing else.
    toc = yaml.safe_load(text)
    listed = [toc["root"], *(file for part in toc["parts"] for file in _toc_files(part["chapters"]))]
    generated = ROOT / "book" / "generated"
    on_disk = {"book/index", "book/method", "book/howto"} | {
        path.relative_to(ROOT).with_suffix("").as_posix() for path in generated.rglob("*.ipynb")
    }
    announcements = {path.stem for path in (ROOT / "data" / "claims").glob("*.yaml")}
    on_disk |= {f"book/generated/{name}" for name in announcements}
    assert len(listed) == len(set(listed))
    assert set(listed) == on_disk


def build_in(clone: Path):
    """`claimbook build --strict` (what `make book` runs) in a copy of the project, with its package."""
    return subprocess.run(
        [sys.executable, "-m", "claimbook", "build", "--strict"],
        cwd=clone,
        env={**os.environ, "PYTHONPATH": str(clone)},
        capture_output=True,
        text=True,
        check=False,
    )


class _Text(HTMLParser):
    """A page's visible text (scripts and styles aside), whitespace collapsed."""

    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self.skip -= tag in ("script", "style") and self.skip > 0

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def page_text(path: Path) -> str:
    parser = _Text()
    parser.feed(path.read_text(encoding="utf-8"))
    return re.sub(r"\s+", " ", " ".join(parser.parts)).strip()


def site_files(site: Path) -> set[str]:
    return {
        path.relative_to(site).as_posix()
        for path in site.rglob("*")
        if path.is_file() and (path.suffix == ".html" or "_downloads" in path.parts)
    }


def test_jupyter_book_build_renders_the_same_book_as_the_build(tmp_path):
    """On a fresh clone, `jupyter-book build .` (the committed executed pages, execution off)
    and `claimbook build` (what `make book` runs) give the same pages with the same text."""
    clone = fresh_clone(tmp_path / "clone")
    done = subprocess.run(
        [str(BIN / "jupyter-book"), "build", ".", "-W", "-n", "--keep-going", "--quiet"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    # The theme's templates are kept compiled beside Sphinx's environment, for the next build.
    assert list((clone / "_build" / ".doctrees" / "claimbook-jinja").glob("__jinja2_*.cache"))
    jupyter_book_site = tmp_path / "jupyter-book-html"
    shutil.move(clone / "_build" / "html", jupyter_book_site)
    shutil.rmtree(clone / "_build")
    # The committed pages are current: `claimbook build` starts no kernel, it only renders.
    done = build_in(clone)
    assert done.returncode == 0, done.stderr[-3000:]
    assert " 0 executed" in done.stderr
    build_site = clone / "_build" / "html"

    pages = site_files(build_site)
    assert pages == site_files(jupyter_book_site)
    assert {"index.html", "book/index.html", "book/generated/rubin_speedup.html"} <= pages
    for page in (
        "book/index.html",
        "book/method.html",
        "book/generated/rubin_speedup.html",
        "book/generated/amd-v6.1/amd-wan-vs-b300.html",
    ):
        text = page_text(build_site / page)
        assert len(text) > 500, page
        assert text == page_text(jupyter_book_site / page), page
    # Both ship the chart library (the pages load it from _static; no CDN).
    for site in (build_site, jupyter_book_site):
        assert (site / "_static" / "claimbook-vega.js").read_text().startswith("/* vega ")
    # Neither changed a file of the clone: the committed book is what a build of it writes.
    changed = [
        path.relative_to(clone).as_posix()
        for path in clone.rglob("*")
        if path.is_file()
        and not {"_build", "__pycache__"} & set(path.relative_to(clone).parts)
        and path.read_bytes() != (ROOT / path.relative_to(clone)).read_bytes()
    ]
    assert not changed, changed

    # The table of contents is the build's own: edited by hand, it is not replaced (exit 2); once
    # removed, the build writes it again. (These two builds run in children forked from this
    # process with the clone's package, tests/helpers/clirun.py: the same code without a second of imports.)
    toc = clone / "_toc.yml"
    toc.write_text(toc.read_text() + "  - file: book/my-page\n")
    edited = toc.read_bytes()
    done = in_copy(clone, "build", "--strict")
    assert done.returncode == 2 and "_toc.yml: changed since the build wrote it" in done.stderr, done.stderr
    assert toc.read_bytes() == edited
    toc.unlink()
    again = in_copy(clone, "build", "--strict")
    assert again.returncode == 0, again.stderr
    assert toc.read_bytes() == (ROOT / "_toc.yml").read_bytes()


def test_sphinx_numbers_no_figure():
    """The book numbers no figure: Sphinx is told so (jupyter-book's default, and its LaTeX
    extension, turn numbering on, which walks every page's doctree on every build)."""
    from jupyter_book.config import get_final_config

    config, _ = get_final_config(
        user_yaml=ROOT / "_config.yml", cli_config={"latex_individualpages": False}, sourcedir=ROOT
    )
    assert config["numfig"] is False
    assert "sphinx_jupyterbook_latex" not in config["extensions"]


def test_the_root_config_excludes_everything_but_the_book():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["execute"]["execute_notebooks"] == "off"
    excluded = set(config["exclude_patterns"])
    for name in sorted(path.name for path in ROOT.iterdir() if path.is_dir()):
        if name != "book":
            assert name in excluded or (name.startswith(".") and ".*" in excluded), name
    for page in sorted(ROOT.glob("*.md")):  # the README and its neighbours are not pages of the book
        assert page.name in excluded, page.name
    assert not any(
        pattern.startswith("book") and pattern != "book/generated/cache.json" for pattern in excluded
    )


# -- the package ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The package's wheel, built offline from a copy of its sources (setuptools writes its work
    folders beside them)."""
    folder = tmp_path_factory.mktemp("wheel")
    source = folder / "source"
    source.mkdir()
    shutil.copy2(ROOT / "pyproject.toml", source)
    shutil.copytree(ROOT / "claimbook", source / "claimbook", ignore=shutil.ignore_patterns("__pycache__"))
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    done = subprocess.run(
        [*command, "--disable-pip-version-check", "-q", "-w", str(folder / "dist"), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (built,) = (folder / "dist").glob("claimbook-*.whl")
    return built


def test_the_wheel_holds_every_module_and_the_command(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = {name.split("/", 1)[1]: archive.read(name).decode() for name in names if ".dist-info/" in name}
    modules = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "claimbook").rglob("*")
        if path.suffix == ".py" or path.parent.name == "templates"
        if "__pycache__" not in path.parts
    }
    assert "claimbook/engine/kinds/ratio.py" in modules
    assert "claimbook/present/templates/table.html" in modules  # the HTML templates are package data
    assert {name for name in names if ".dist-info/" not in name} == modules
    assert "claimbook = claimbook.__main__:run" in info["entry_points.txt"]
    assert "Requires-Dist: pandas<4,>=3.1" in info["METADATA"]


def _declared() -> dict[str, list[Requirement]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {
        "runtime": [Requirement(text) for text in project["dependencies"]],
        "dev": [Requirement(text) for text in project["optional-dependencies"]["dev"]],
    }


def test_the_lock_satisfies_the_declared_ranges():
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    for group, requirements in _declared().items():
        for requirement in requirements:
            pinned = pins.get(canonicalize_name(requirement.name))
            assert pinned is not None, f"{group} dependency {requirement} is not pinned in requirements.txt"
            assert requirement.specifier.contains(pinned), f"{requirement}: the lock pins {pinned}"


def test_every_package_the_code_imports_is_declared():
    declared = {canonicalize_name(requirement.name) for requirement in _declared()["runtime"]}
    distributions = packages_distributions()
    imported = set()
    for path in (ROOT / "claimbook").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    third_party = {name for name in imported if name in distributions and name != "claimbook"}
    assert {"pandas", "yaml", "altair", "papermill"} <= third_party
    for name in sorted(third_party):
        assert {canonicalize_name(d) for d in distributions[name]} & declared, f"{name} is not declared"


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The wheel installed (not editable) into a folder of its own."""
    target = tmp_path_factory.mktemp("installed")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check"]
        + ["-q", "--target", str(target), str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return target


def run_installed(installed: Path, arguments, cwd: Path):
    return subprocess.run(
        arguments,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(installed)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_installed_package_finds_the_project_it_is_run_in(installed, tmp_path):
    probe = "import claimbook, claimbook.engine.kinds.ratio, claimbook.common.paths as p; print(claimbook.__file__, p.PROJECT_ROOT)"
    done = run_installed(installed, [sys.executable, "-c", probe], ROOT / "data" / "claims")
    assert done.returncode == 0, done.stderr
    module, root = done.stdout.split()
    assert Path(module).is_relative_to(installed) and Path(root) == ROOT
    # The console command, from inside the project and from a folder outside every project.
    command = installed / "bin" / "claimbook"
    done = run_installed(installed, [str(command), "list"], ROOT / "book")
    assert done.returncode == 0, done.stderr
    assert "amd-wan-vs-b300" in done.stdout
    done = run_installed(installed, [str(command), "list"], tmp_path)
    one_error_line(done, code=2, starts="error: not inside a claimbook project")


def test_the_installed_command_works_on_a_project_named_from_anywhere(installed, tmp_path):
    """``claimbook -C DIR`` (as ``git -C``) and ``CLAIMBOOK_PROJECT=DIR`` pick the project from a
    folder outside every checkout; the usage line names the command."""
    command = str(installed / "bin" / "claimbook")
    done = run_installed(installed, [command, "-C", str(ROOT), "list"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "amd-wan-vs-b300" in done.stdout
    done = subprocess.run(
        [command, "check", "amd-wan-vs-b300"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(installed), "CLAIMBOOK_PROJECT": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("amd-wan-vs-b300 (amd-v6.1): "), done.stderr
    done = run_installed(installed, [command, "-C", str(tmp_path), "list"], tmp_path)
    one_error_line(done, code=2, starts=f"error: not a claimbook project: {tmp_path} (named by -C")
    done = run_installed(installed, [command, "--help"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("usage: claimbook "), done.stdout
    assert "-C DIR" in done.stdout


# -- the publishing workflow ---------------------------------------------------------------------
def actionlint(path: Path):
    return subprocess.run(
        [str(BIN / "actionlint"), "-no-color", str(path)], capture_output=True, text=True, check=False
    )


def test_actionlint_passes_the_workflow_and_catches_a_broken_one(tmp_path):
    done = actionlint(WORKFLOW)
    assert (done.returncode, done.stdout + done.stderr) == (0, "")
    broken = tmp_path / "book.yml"
    broken.write_text(WORKFLOW.read_text().replace("needs: build", "needs: biuld"))
    done = actionlint(broken)
    assert done.returncode == 1 and 'needs job "biuld"' in done.stdout


def test_pull_requests_are_tested_and_only_main_is_published():
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert "pull_request" in triggers and triggers["push"]["branches"] == ["main"]
    jobs = workflow["jobs"]
    assert "if" not in jobs["test"]
    for name in ("build", "deploy"):
        assert "github.event_name != 'pull_request'" in jobs[name]["if"]
        assert "github.ref == 'refs/heads/main'" in jobs[name]["if"]
    assert workflow["permissions"] == {"contents": "read"}
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}


# The README is the front door: short, in a newcomer's order, every command it shows runnable.
README = ROOT / "README.md"
README_MOST_LINES = 200
README_ORDER = (
    "The two commands",
    "Reading the book",
    "Rerunning with new data",
    "Checking a new announcement",
    "The preview",
    "Run a page with papermill",
    "nbval in CI",
    "Where next",
)


def _readme_commands() -> list[list[str]]:
    """Each command of the README's ``sh`` blocks, continuation lines joined, comments dropped."""
    import shlex

    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    joined = "\n".join(blocks).replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if line.split("#")[0].strip()]


def _makefile_targets() -> dict[str, list[str]]:
    """Each target of the Makefile and its recipe's lines."""
    targets, current = {}, None
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        if match := re.match(r"^([\w.$()/-]+):", line):
            current = targets.setdefault(match.group(1), [])
        elif line.startswith("\t") and current is not None:
            current.append(line.strip().lstrip("@"))
    return targets


def test_the_readme_is_short_and_in_a_newcomer_s_order():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MOST_LINES, len(text.splitlines())
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings == list(README_ORDER), headings
    assert re.search(r"!\[[^\]]+\]\(docs/screenshots/\w[\w-]*\.png\)", text), "no screenshot"
    assert "make book   #" in text and "make test   #" in text


def test_every_file_the_readme_links_exists_and_every_moved_part_is_linked():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#([\w-]+))?\)", text)
    for path, anchor in links:
        assert (ROOT / path).exists(), path
        if anchor:
            headings = re.findall(r"^#+ (.+)$", (ROOT / path).read_text(encoding="utf-8"), re.MULTILINE)
            slugs = {re.sub(r"[^\w -]", "", heading.lower()).replace(" ", "-") for heading in headings}
            assert anchor in slugs, (path, anchor)
    linked = {path for path, _ in links}
    for moved in ("docs/commands.md", "docs/authoring-claims.md", "docs/safety-and-faults.md"):
        assert moved in linked, moved
    assert {"docs/performance.md", "docs/architecture.md", "CONTRIBUTING.md", "CHANGELOG.md"} <= linked


def test_every_command_the_readme_shows_is_one_the_project_runs():
    """``make`` targets exist; every ``claimbook`` subcommand answers ``--help``; every papermill
    parameter is one its template declares; the nbval command is the Makefile's own."""
    from claimbook.pipeline.plan import declared_parameters
    from tests.helpers.clirun import in_process

    targets, commands = _makefile_targets(), _readme_commands()
    assert {"book", "test"} <= {words[1] for words in commands if words[0] == "make"}
    for words in commands:
        if words[0] == "make":
            assert words[1] in targets, words
        elif words[:3] == [".venv/bin/python", "-m", "claimbook"]:
            done = in_process(words[3], "--help")
            assert done.returncode == 0, (words, done.stderr)
        elif words[0] == ".venv/bin/papermill":
            template = next(ROOT / word for word in words if word.endswith(".ipynb"))
            declared = declared_parameters(template)
            given = [words[at + 1] for at, word in enumerate(words) if word == "-p"]
            given += [words[at + 1].split(":")[0] for at, word in enumerate(words) if word == "-y"]
            assert set(given) <= set(declared), (words, given)
        elif words[:4] == [".venv/bin/python", "-m", "pytest", "--nbval"]:
            assert " ".join(words) in targets["nbval"], (words, targets["nbval"])
        else:
            pytest.fail(f"a README command this test does not know how to check: {words}")
