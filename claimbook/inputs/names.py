"""Names as MLCommons' files spell them, compared the way a reader reads them.

One accelerator, system or organization is spelled several ways from one version of a results
file to the next ("Vera Rubin", "VeraRubin", "vera-rubin"). The book compares names ignoring
case, spacing and punctuation: ``squash`` keeps only letters and digits, lower-cased. A family
name is found in a longer text as whole words (``B200`` is not in ``GB200``), the words of the
name separated by any spacing or punctuation, or none.
"""

from __future__ import annotations

import difflib
import functools
import re

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")


def squash(value) -> str:
    """``"NVIDIA Vera-Rubin"`` -> ``"nvidiaverarubin"``: the name without case, spaces or punctuation."""
    return _squashed(str(value))


@functools.lru_cache(maxsize=16384)
def _squashed(text: str) -> str:
    # A check squashes the same few hundred names tens of thousands of times.
    return _NOT_ALNUM.sub("", text.lower())


@functools.lru_cache(maxsize=256)
def _word_pattern(name: str) -> tuple[tuple[str, ...], re.Pattern]:
    """The name's words, and the pattern that finds them as whole words in a lower-cased text."""
    words = tuple(word for word in _NOT_ALNUM.split(name.lower()) if word)
    if not words:  # an empty name stands for an empty text ("no accelerator")
        return words, re.compile(r"^[^0-9a-z]*$")
    return words, re.compile(r"(?<![0-9a-z])" + r"[^0-9a-z]*".join(map(re.escape, words)) + r"(?![0-9a-z])")


def _name_match(text, name: str) -> re.Match | None:
    # Each word must be in the text for the pattern to match: looking for the words first (a
    # substring search) spares the pattern's scan of a long text that lacks one (a 2 MB draft).
    words, pattern = _word_pattern(name)
    lowered = str(text).lower()
    if not all(word in lowered for word in words):
        return None
    return pattern.search(lowered)


def contains_name(text, name: str) -> bool:
    """Whether ``name`` is in ``text`` as whole words, whatever the case, spacing and punctuation:
    "Vera Rubin" is in "NVIDIA VeraRubin NVL72" and in "nvidia vera-rubin", "B200" is not in "GB200"."""
    return _name_match(text, name) is not None


def name_span(text, name: str) -> tuple[int, int] | None:
    """Where ``name`` is in ``text`` as whole words (as ``contains_name`` finds it), or None."""
    found = _name_match(text, name)
    return found.span() if found else None


def closest(wanted, existing, n: int = 3) -> tuple[str, ...]:
    """The real names nearest to ``wanted``, compared without case, spacing and punctuation."""
    by_key: dict[str, list[str]] = {}
    for name in sorted({str(value) for value in existing}):
        by_key.setdefault(squash(name), []).append(name)
    near = difflib.get_close_matches(squash(wanted), list(by_key), n=n, cutoff=0.5)
    # A name a longer one contains ("Dell" in "Dell_AMD") is near whatever difflib thinks.
    key = squash(wanted)
    if key:
        near += [other for other in by_key if other not in near and (key in other or other in key)]
    return tuple(name for other in near[:n] for name in by_key[other])


def similarity(wanted, name) -> float:
    """How alike two names are (0 to 1), without case, spacing and punctuation; a name one of
    them contains whole ("Dell" in "Dell_AMD") is as alike as can be short of the same."""
    a, b = squash(wanted), squash(name)
    if a == b:
        return 1.0
    if a and b and (a in b or b in a):
        return 0.99
    return difflib.SequenceMatcher(None, a, b).ratio()
