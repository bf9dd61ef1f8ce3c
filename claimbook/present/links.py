"""Every link from one page of the book to another, made in one place.

Jupyter Book 1 gives each page an address ending in ``.html`` in the folders of its sources;
another builder (Jupyter Book 2 drops the suffix and flattens the folders) needs other
addresses. So no page writes an address of its own: it asks ``page`` (or a helper built on it),
and a change of scheme is an edit of ``page`` alone.

A page's links are relative to the page (``root`` is the way from it up to ``book/``: "" for
the front page, "../" for a chapter, "../../" for a claim's page), so the built book can be
served from any folder. A claim's card has the anchor ``card_anchor(id)`` wherever it is shown.
"""

from __future__ import annotations

from claimbook.common.paths import GENERATED_DIR

SUFFIX = ".html"


def page(document: str, root: str = "", anchor: str | None = None) -> str:
    """The address of the book's page ``document`` (its source's path under ``book/``, without
    suffix: "method", "generated/explorer") from a page ``root`` below ``book/``."""
    address = f"{root}{document}{SUFFIX}"
    return f"{address}#{anchor}" if anchor else address


def generated(name: str, root: str = "", anchor: str | None = None) -> str:
    """A page the build writes (an announcement's, a chapter, a claim's page)."""
    return page(f"{GENERATED_DIR}/{name}", root, anchor)


def announcement(announcement_id: str, root: str = "") -> str:
    return generated(announcement_id, root)


def caveat(code: str, root: str = "") -> str:
    """A caveat's explanation on the method page (its badges link there)."""
    return page("method", root, f"caveat-{code}")


def card_anchor(claim_id: str) -> str:
    return f"claim-{claim_id}"


def claim(claim, registry, root: str = "") -> str:
    """Where a claim's card is: its own page, its narrative chapter, or its announcement's page
    (a claim with nothing to compute); a part's card is its parent's."""
    shown = registry.claim(claim.parent) if claim.parent else claim
    return generated(registry.card_page(claim), root, card_anchor(shown.id))


class Page:
    """The page being written: the registry its claims come from and its ``root``. A page's
    template sets it once (``use_page``, as ``open_chapter`` does), so that any table naming a
    claim links it without each call passing both."""

    registry = None
    root = ""


def use_page(registry, root: str) -> None:
    Page.registry, Page.root = registry, root


def claim_by_id(claim_id: str, registry=None, root: str | None = None) -> str | None:
    """Where the card of the claim with id ``claim_id`` is, on the current page (None for an id no
    registry the page knows has)."""
    registry = registry if registry is not None else Page.registry
    if registry is None:
        return None
    try:
        found = registry.claim(str(claim_id))
    except KeyError:
        return None
    return claim(found, registry, Page.root if root is None else root)
