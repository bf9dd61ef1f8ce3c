"""An announcement's text (a vendor's post saved as plain text or Markdown), read as untrusted
input, cut into sentences, and each sentence's figures found with the vendor's quantifier.

The file is read with bounds (a regular file of at most ``MAX_BYTES``, UTF-8, no NUL bytes);
markup is taken as text (HTML tags, Markdown emphasis, links and table rules are dropped, never
interpreted) and control characters become spaces. Sentences are cut by ``sentencex`` (rule
based, no model to download) within each paragraph, list item, table row or heading; numbers
written as words ("nineteen partners") are read by ``text2num``.

A figure is a number with a unit the book checks (a multiple, a percentage, a rate, a time, a
count of partners or GPUs...), with the words before it that bound it ("up to", "at least"...).
``QUANTIFIERS`` is the one table from the vendor's words to the registry's vocabulary.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from sentencex import segment
from text_to_num import alpha2digit

from claimbook.common import formatting
from claimbook.common.safe_read import InputError, read_text

MAX_BYTES = 2 * 1024 * 1024  # a post is tens of kB; a saved web page with its scripts is not a post

# The vendor's words before a figure -> the registry's quantifier (the claim language's
# vocabulary). Longest phrases first where one contains another. A figure with none is "exactly".
QUANTIFIERS = (
    ("up to", "up-to"),
    ("as much as", "up-to"),
    ("at least", "at-least"),
    ("no less than", "at-least"),
    ("more than", "more-than"),
    ("greater than", "more-than"),
    ("over", "over"),
    ("above", "over"),
    ("at most", "at-most"),
    ("no more than", "at-most"),
    ("less than", "less-than"),
    ("fewer than", "less-than"),
    ("under", "under"),
    ("below", "under"),
    ("about", "about"),
    ("around", "about"),
    ("approximately", "about"),
    ("roughly", "about"),
    ("~", "about"),
    ("nearly", "nearly"),
    ("almost", "nearly"),
    ("close to", "nearly"),
    ("within", "within"),
)
# Words after a figure that bound it: "3x or better", "95% or more".
AFTER_QUANTIFIERS = (("or better", "or-better"), ("or more", "at-least"), ("or higher", "at-least"))
EXACTLY = "exactly"
A_FEW_PERCENT = "a-few-percent"  # "within a few percent": the registry's reading of it, no figure
WITHIN = "within"

# Rates: the thing counted -> the unit as MLPerf's results write it. A text-to-video result counts
# a video as one sample.
RATE_NOUNS = {
    "token": "tokens/s",
    "query": "queries/s",
    "queries": "queries/s",
    "sample": "samples/s",
    "video": "samples/s",
    "image": "samples/s",
    "frame": "samples/s",
}
SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
TIMES = {"s": "s", "sec": "s", "second": "s", "ms": "ms", "millisecond": "ms", "minute": "min", "hour": "h"}
# Things counted -> the unit a registry writes for the count.
COUNT_NOUNS = {
    "partner": "partners",
    "gpu": "GPUs",
    "accelerator": "GPUs",
    "rack": "racks",
    "node": "nodes",
    "system": "systems",
    "submission": "submissions",
    "submitter": "submitters",
    "result": "results",
    "benchmark": "benchmarks",
    "entry": "entries",
    "entries": "entries",
    "round": "rounds",
    "categories": "categories",
    "category": "categories",
}
MULTIPLE_WORDS = {"double": 2.0, "twice": 2.0, "triple": 3.0, "quadruple": 4.0}
SUPERLATIVES = (
    "leading",
    "highest",
    "lowest",
    "fastest",
    "largest",
    "best",
    "top",
    "record",
    "first",
    "only",
    "most",
)

_NUMBER = re.compile(r"(?<![\w.\-/])(~?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\d])")
_WORD = re.compile(r"[A-Za-z][\w.\-]*|\d[\w.\-]*|[%×/]")
_TAG = re.compile(r"<[^<>\n]{0,500}>")
_LINK = re.compile(r"!?\[([^\]\n]{0,500})\]\([^)\s]{0,2000}\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


@dataclass(frozen=True)
class Figure:
    """A figure of a sentence: its value as a number, as written, its unit and precision (digits
    after the point), the quantifier, and where it starts in the sentence."""

    value: float | None
    written: str
    unit: str
    decimals: int
    quantifier: str
    start: int
    scale: float = 1.0
    within: float | None = None


@dataclass(frozen=True)
class Sentence:
    """A sentence of the text (markup taken out) and the line it starts on."""

    text: str
    line: int


def read_announcement(path: str | Path, label: str | None = None) -> str:
    """The text of a saved announcement; one-line InputError for anything that is not one."""
    label = label or str(path)
    text = read_text(path, label, "announcement", limit=MAX_BYTES)
    if "\x00" in text:
        raise InputError(f"{label}: a binary file (it holds NUL bytes); save the announcement as text")
    head = text.lstrip()[:200].lower()
    if head.startswith(("<!doctype", "<html", "<?xml")):
        raise InputError(f"{label}: an HTML or XML page; save the announcement's text (or Markdown) instead")
    controls = len(_CONTROL.findall(text))
    if controls > max(16, len(text) // 20):
        raise InputError(f"{label}: mostly control characters, not text; save the announcement as text")
    return text


# Numbers Unicode writes as one character: a vulgar fraction ("2½x" is 2.5x), and superscript
# digits, which after a figure or a word are its footnote's mark ("964,468² tokens/s"). Their
# compatibility forms would glue their digits to the figure before them ("21⁄2", "964,4682").
_FRACTION = re.compile(r"(\d*)([\u00bc-\u00be\u2150-\u215e])")
_MARK = re.compile(r"(?<=\w)[\u00b2\u00b3\u00b9\u2070\u2074-\u2079]+")


def _fraction(match: re.Match) -> str:
    whole = int(match.group(1)) if match.group(1) else 0
    return formatting.stated(whole + unicodedata.numeric(match.group(2)))


def plain(line: str) -> str:
    """A line of text or Markdown as plain words: control characters, HTML tags, emphasis, link
    targets and table rules out, a vulgar fraction as its decimal, a footnote's superscript mark
    after a word or figure out, Unicode in its composed form."""
    line = _MARK.sub("", _FRACTION.sub(_fraction, _CONTROL.sub(" ", line)))
    line = unicodedata.normalize("NFKC", line)
    line = _LINK.sub(r"\1", _TAG.sub(" ", line))
    line = _EMPHASIS.sub("", line)
    if re.fullmatch(r"\s*\|?[\s:|-]*-[\s:|-]*\|?\s*", line):
        return ""  # a table's rule
    line = re.sub(r"^\s{0,3}(#{1,6}\s+|>\s?)", "", line)
    return " ".join(line.replace("|", " | ").split()).strip(" |")


TITLE_WORDS = 5  # a "sentence" this short, inside a paragraph, is the title of what follows
_ITEM = re.compile(r"^\s*([-*+]|\d{1,3}[.)])\s+|^\s*\||^\s{0,3}#")


def paragraphs(text: str) -> list[tuple[str, int]]:
    """The text's paragraphs, list items, table rows and headings, each as one line of plain
    words with the line it starts on. A line joins the one before it when it continues it (an
    indented line, or one in lower case after a line that ends mid-sentence)."""
    found: list[list] = []
    previous = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            previous = ""
            continue
        words = plain(raw)
        if not words:
            continue
        continues = (
            previous
            and not _ITEM.match(raw)
            and (
                raw[:1].isspace()
                or (not previous.rstrip().endswith((".", "!", "?", ":")) and raw[:1].islower())
            )
        )
        if continues and found:
            found[-1][0] += " " + words
        else:
            found.append([words, number])
        previous = raw
    return [(words, number) for words, number in found]


def sentences(text: str) -> list[Sentence]:
    """The text's sentences in order, each with the line it starts on."""
    found = []
    for words, line in paragraphs(text):
        parts = [" ".join(part.split()) for part in segment("en", words)]
        held = ""
        for part in filter(None, parts):
            if len(part.split()) <= TITLE_WORDS and part is not parts[-1]:
                held += part + " "  # "1.", "**Scaling.**": a list item's number or title
                continue
            found.append(Sentence(held + part, line))
            held = ""
        if held:
            found.append(Sentence(held.strip(), line))
    return found


def superlatives(sentence: str) -> list[str]:
    """The superlatives of a sentence that make it a checkable statement ("leading", "first")."""
    words = {word.lower() for word in re.findall(r"[A-Za-z]+", sentence)}
    return [word for word in SUPERLATIVES if word in words]


_UNIT_X = re.compile(r"\s?(?:x|×|times)(?![A-Za-z0-9])", re.IGNORECASE)
_UNIT_PERCENT = re.compile(r"\s?(?:%|percent\b|per cent\b)", re.IGNORECASE)
_SCALE = r"(?:(?P<scale>thousand|million|billion|trillion)\s+)?"
# Up to two words between a figure and its noun ("four GB300 NVL72 racks", "0.65 720p videos"),
# none of them a number of its own, nor a model's size ("Llama 2 70B Server result": a name, no count).
_BETWEEN = r"(?:(?![\d.,]+\s)(?!\d+(?:\.\d+)?[BbMmKkTt]\b)[^\s,;:()]+\s+){0,2}?"
_RATE = re.compile(
    r"\s*" + _SCALE + _BETWEEN + r"(?P<noun>tokens?|quer(?:y|ies)|samples?|videos?|images?|frames?)"
    r"\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?\b)",
    re.IGNORECASE,
)
_TIME = re.compile(r"\s*(?P<noun>s|secs?|seconds?|ms|milliseconds?|minutes?|hours?)\b", re.IGNORECASE)
_COUNT = re.compile(
    r"(?:-|\s*" + _BETWEEN + r")(?P<noun>partners?|gpus?|accelerators?|racks?|nodes?|systems?|submissions?"
    r"|submitters?|results?|benchmarks?|entries|entry|rounds?|categories|category)\b",
    re.IGNORECASE,
)
_OF_THEM = re.compile(r"\s+of\s+them\b", re.IGNORECASE)
_RANGE = re.compile(r"\s*(?:to|and|or|-|–|/)\s*\d", re.IGNORECASE)
# A bare number before a scenario's name takes the unit of the figures around it in the sentence.
_SCENARIO_AFTER = re.compile(r"\s*/?\s*(?:Server|Offline|Interactive|SingleStream|MultiStream)\b")
_A_FEW_PERCENT = re.compile(r"\ba\s+few\s+percent\b", re.IGNORECASE)
_MULTIPLE_WORD = re.compile(r"\b(double|twice|triple|quadruple)\b", re.IGNORECASE)


def _singular(noun: str) -> str:
    noun = noun.lower()
    if noun in ("queries", "entries", "categories"):
        return noun
    return noun[:-1] if noun.endswith("s") and noun not in ("s", "ms") else noun


_MEMORY = re.compile(r"\s?(?P<unit>[KMGT]B|[KMGT]iB)\b")
_CURRENCY_BEFORE = re.compile(r"(?:\$|USD\s?|US\$\s?)$")
_CURRENCY_REACH = 8  # the longest the pattern matches ("US$ "), with room to spare


def _unit(rest: str, accelerators: frozenset) -> tuple[str, float, int] | None:
    """The unit right after a figure (``rest`` is the sentence after it): (unit, scale, length
    of the unit's text), or None when the number is no figure (a year, an ID, a bare count)."""
    memory = _MEMORY.match(rest)
    if memory:
        return memory.group("unit"), 1.0, memory.end()  # "288GB", "288 GB": a memory figure
    if rest[:1].isalpha() and not _UNIT_X.match(rest):
        return None  # part of a name: "720p", "120b"
    for pattern, unit in ((_UNIT_X, "x"), (_UNIT_PERCENT, "%")):
        found = pattern.match(rest)
        if found:
            after = rest[found.end() :]
            if unit == "x" and after[:1].isalnum():
                return None  # "8xMI355X": a system's name
            if unit == "x" and _names_accelerator(after, accelerators):
                return "GPUs", 1.0, found.end()  # "8x MI355X": eight of them
            return unit, 1.0, found.end()
    found = _RATE.match(rest)
    if found:
        scale = found.group("scale")
        unit = RATE_NOUNS.get(_singular(found.group("noun")), "per second")
        return (
            (f"{scale.lower()} {unit}" if scale else unit),
            SCALES.get((scale or "").lower(), 1.0),
            found.end(),
        )
    found = _TIME.match(rest)
    if found:
        return TIMES.get(_singular(found.group("noun")), "s"), 1.0, found.end()
    found = _COUNT.match(rest)
    if found:
        return COUNT_NOUNS.get(_singular(found.group("noun")), "things"), 1.0, found.end()
    if _names_accelerator(rest, accelerators):
        return "GPUs", 1.0, 0
    return None


def _names_accelerator(rest: str, accelerators: frozenset) -> bool:
    """Whether the words after a figure begin with an accelerator's name ("eight MI355X")."""
    if not re.match(r"[\s-]", rest):
        return False
    words = re.findall(r"[A-Za-z0-9]+", re.split(r"[.,;:()]", rest[:40])[0])
    return any("".join(words[:size]).lower() in accelerators for size in (1, 2, 3))


def _quantifier(before: str, after: str, tilde: str) -> str:
    if tilde:
        return "about"
    before = before.lower().rstrip()
    for words, name in sorted(QUANTIFIERS, key=lambda item: -len(item[0])):
        if before.endswith(words) and (len(before) == len(words) or not before[-len(words) - 1].isalnum()):
            return name
    after = after.lower().lstrip(" ,")
    for words, name in AFTER_QUANTIFIERS:
        if after.startswith(words):
            return name
    return EXACTLY


# How much of a sentence around a number is read for its unit and quantifier: every pattern
# spans a few words, and a window (not the rest of the sentence) keeps a sentence of thousands of
# figures linear to read.
_WINDOW = 200


def figures(sentence: str, accelerators: frozenset = frozenset()) -> list[Figure]:
    """The figures of a sentence, in order. ``accelerators``: names of accelerators, squashed
    (letters and digits, lower case), after which a number counts GPUs ("eight MI355X")."""
    text = _digits(sentence)
    found: list[Figure] = []
    pending: list[tuple] = []  # numbers without a unit of their own: "from 8 to 72 GPUs"
    for match in _NUMBER.finditer(text):
        tilde, whole, fraction = match.group(1), match.group(2), match.group(3) or ""
        rest = text[match.end() : match.end() + _WINDOW]
        if fraction and re.match(r"-\d", rest):
            continue  # a result ID (6.1-0106)
        value = float(whole.replace(",", "") + fraction)
        # (The few characters before the number: searching all of them made a long sentence quadratic.)
        currency = _CURRENCY_BEFORE.search(text[max(0, match.start() - _CURRENCY_REACH) : match.start()])
        unit = ("USD", 1.0, 0) if currency else _unit(rest, accelerators)
        unit = unit or _unit_around(text, match, rest, found)
        if unit is not None and fraction and unit[0] in COUNT_NOUNS.values():
            unit = None  # "WAN 2.2 text-to-video benchmark": a count is a whole number
        if unit is None:
            if _RANGE.match(rest):
                pending.append((match, tilde, whole, fraction, value))
            else:
                pending = []
            continue
        name, scale, length = unit
        for waiting in pending:
            found.append(_figure(text, waiting, name, scale, 0))
        pending = []
        found.append(_figure(text, (match, tilde, whole, fraction, value), name, scale, length))
    found += _worded(text)
    return sorted(found, key=lambda figure: figure.start)


_KEPT = "Qzq"  # glued to a scale word, text2num reads it as a word of no number


def _unit_around(text: str, match: re.Match, rest: str, found: list[Figure]):
    """The unit a bare number takes from the figure before it: "19 partners, eight of them", or
    a result before a scenario's name after a result in the same clause ("964,468 tokens/s
    Server, 1,039,900 Offline")."""
    if not found:
        return None
    last = found[-1]
    if _OF_THEM.match(rest):
        return last.unit, last.scale, 0
    same_clause = ";" not in text[last.start : match.start()]
    measured = last.unit.endswith("/s") or last.unit in TIMES.values()
    if _SCENARIO_AFTER.match(rest) and same_clause and measured:
        return last.unit, last.scale, 0
    return None


_SCALED = re.compile(r"(\d)\s+(thousand|million|billion|trillion)\b", re.IGNORECASE)


def _digits(sentence: str) -> str:
    """The sentence with its numbers written as words in digits ("nineteen" -> "19"), a scale
    after digits kept as a word ("5.75 million" stays, its figure being 5.75 million)."""
    kept = _SCALED.sub(lambda match: f"{match.group(1)} {_KEPT}{match.group(2)}", sentence)
    return alpha2digit(kept, "en").replace(_KEPT, "")


def _figure(text: str, number: tuple, unit: str, scale: float, length: int) -> Figure:
    match, tilde, whole, fraction, value = number
    quantifier = _quantifier(_before(text, match.start()), _after(text, match.end() + length), tilde)
    return Figure(
        value=value,
        written=(whole + fraction),
        unit=unit,
        decimals=max(len(fraction) - 1, 0),
        quantifier=quantifier,
        start=match.start(),
        scale=scale,
        within=value if quantifier == WITHIN else None,
    )


def _before(text: str, start: int) -> str:
    return text[max(0, start - _WINDOW) : start]


def _after(text: str, end: int) -> str:
    return text[end : end + _WINDOW]


def _worded(text: str) -> list[Figure]:
    """Figures written as words: "a few percent", "double", "twice"."""
    found = []
    for match in _A_FEW_PERCENT.finditer(text):
        found.append(Figure(None, match.group(0), "%", 0, A_FEW_PERCENT, match.start()))
    for match in _MULTIPLE_WORD.finditer(text):
        value = MULTIPLE_WORDS[match.group(1).lower()]
        quantifier = _quantifier(_before(text, match.start()), _after(text, match.end()), "")
        found.append(Figure(value, match.group(1), "x", 0, quantifier, match.start()))
    return found
