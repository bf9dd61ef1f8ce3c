"""The search index and the front page's ledger (``claimbook.present.sphinx_unindexed``): a page
built by Sphinx with the extension and without it, compared; and the book's own index."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from claimbook.present import markdown_pages

# A page as the build writes its ledger (its own HTML block), with words of its own on each side.
PAGE = (
    "# A front page\n\nProse outside: zebrafinch.\n\n"
    + markdown_pages.html_block(
        '<ul class="claimbook-ledger" aria-label="every claim"><li><details><summary>quokkaline '
        "</summary><p>narwhalish &amp; more</p></details></li></ul>"
    )
    + "More prose: ocelotry.\n\n"
    + markdown_pages.html_block("<p>Another block: axolotlism</p>")
)


def searchindex(site: Path) -> dict:
    text = (site / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def terms_of(index: dict, docname: str) -> set[str]:
    number = index["docnames"].index(docname)
    return {
        term
        for term, where in index["terms"].items()
        if number == where or (isinstance(where, list) and number in where)
    }


def sphinx_site(folder: Path, extensions: list[str]) -> Path:
    """``PAGE`` built by Sphinx (MyST) with ``extensions``; the HTML folder."""
    source = folder / "source"
    source.mkdir(parents=True)
    (source / "conf.py").write_text(f"extensions = {['myst_parser', *extensions]!r}\n")
    (source / "index.md").write_text(PAGE)
    site = folder / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(source), str(site)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return site


def body(site: Path) -> str:
    page = (site / "index.html").read_text(encoding="utf-8")
    return page[page.index('<div class="body"') : page.index('<div class="sphinxsidebar"')]


def test_a_ledger_is_written_as_it_was_and_left_out_of_the_index(tmp_path):
    plain = sphinx_site(tmp_path / "plain", [])
    unindexed = sphinx_site(tmp_path / "unindexed", ["claimbook.present.sphinx_unindexed"])
    assert body(unindexed) == body(plain)  # the same HTML, the ledger's included
    assert "quokkaline" in body(unindexed) and "narwhalish &amp; more" in body(unindexed)
    before, after = terms_of(searchindex(plain), "index"), terms_of(searchindex(unindexed), "index")
    # Without the extension the ledger's words are indexed (as Sphinx stems them; "&amp;" gives "amp").
    from_the_ledger = {term for term in before if re.match("quokka|narwhal|amp$", term)}
    assert len(from_the_ledger) == 3
    assert not {term for term in after if re.match("quokka|narwhal|amp$", term)}
    # Everything else is indexed as before: the prose, and an HTML block that is no ledger.
    assert after == before - from_the_ledger
    for word in ("zebra", "ocelot", "axolotl"):
        assert any(term.startswith(word) for term in after), word


def test_the_book_s_front_page_is_indexed_by_its_prose_not_its_ledger(built_book):
    """Every term the book's index holds for its front page is a word of the page's text once
    its ledgers are taken out (stemmed as Sphinx stems English), and the page keeps its ledgers."""
    from sphinx.search.en import SearchEnglish

    page = (built_book / "book" / "index.html").read_text(encoding="utf-8")
    main = page[page.index('<article class="bd-article">') : page.index("</article>")]
    ledgers = re.findall(r'<ul class="claimbook-ledger".*?</ul>\s*</div>', main, flags=re.DOTALL)
    assert ledgers and all("claimbook-ledger-item" in ledger for ledger in ledgers)
    outside = main
    for ledger in ledgers:
        outside = outside.replace(ledger, " ")
    # Sphinx reads raw HTML with its tags taken out (words either side joined) and other text
    # node by node (tags as breaks); it keeps a word's stem, or the word where its stem is too short.
    texts = [re.sub(r"<[^<]+?>", joiner, outside) for joiner in ("", " ")]
    language = SearchEnglish({})
    words = {word for text in texts for word in language.split(text)}
    stems = words | {language.stem(word).lower() for word in words}
    indexed = terms_of(searchindex(built_book), "book/index")
    assert indexed, "the front page has no term in the index"
    assert indexed <= stems, f"indexed from the ledger: {sorted(indexed - stems)[:20]}"
    ledger_words = {word for ledger in ledgers for word in language.split(re.sub(r"<[^<]+?>", " ", ledger))}
    assert {language.stem(word).lower() for word in ledger_words} - stems, "no word of the ledger's own"


def test_a_page_gone_leaves_the_index_as_a_build_from_nothing_makes_it(tmp_path):
    """The book's pruning of the index (``sphinx_same_site``: emptied words gone, pages as a set): once a page is
    removed, a rebuild's index is the index of a build from nothing."""
    extensions = ["claimbook.pipeline.sphinx_same_site"]
    source = tmp_path / "rebuilt" / "source"
    source.mkdir(parents=True)
    (source / "conf.py").write_text(f"extensions = {['myst_parser', *extensions]!r}\n")
    pages = {
        "index": "# Home\n\nwombatry\n\n```{toctree}\ngone\nkept\n```\n",
        "gone": "# Gone\n\nplatypodes wombatry\n",
        "kept": "# Kept\n\nechidnas\n",
    }
    for name, text in pages.items():
        (source / f"{name}.md").write_text(text)
    site = tmp_path / "rebuilt" / "html"
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(source), str(site)]
    assert subprocess.run(command, capture_output=True, check=False).returncode == 0
    assert "gone" in searchindex(site)["docnames"]
    (source / "gone.md").unlink()
    (source / "index.md").write_text(pages["index"].replace("gone\n", ""))
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    rebuilt = searchindex(site)
    fresh = tmp_path / "fresh" / "source"
    shutil.copytree(source, fresh)
    fresh_site = tmp_path / "fresh" / "html"
    fresh_command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(fresh), str(fresh_site)]
    assert subprocess.run(fresh_command, capture_output=True, check=False).returncode == 0
    assert "gone" not in rebuilt["docnames"] and not any(
        term.startswith("platypod") for term in rebuilt["terms"]
    )
    assert rebuilt == searchindex(fresh_site)


class _Indexer:
    """An index that records what ``prune`` was given."""

    def __init__(self):
        self.given = []

    def prune(self, pages):
        self.given.append(pages)


def test_the_index_is_pruned_with_a_set_of_pages():
    from claimbook.pipeline.sphinx_same_site import prune_with_a_set

    indexer = _Indexer()
    prune_with_a_set(indexer)
    indexer.prune({"a": 1.0, "b": 2.0})  # (Sphinx's documents: a dict)
    kept = frozenset({"a"})
    indexer.prune(kept)
    assert indexer.given == [{"a", "b"}, kept] and isinstance(indexer.given[0], set)
    assert indexer.given[1] is kept
