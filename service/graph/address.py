"""Notes addressed the way Obsidian users write links: one resolver for every tool that takes a note.

An address is what a wikilink holds, with or without its brackets: `Launch plan`,
`[[Projects/Launch plan#Goals|the plan]]`, `Plan.md`, `plan`, an alias (`Home`), `Note#Heading`,
`Note#A#B` (a nested heading), `Note#^block`. `parse_address` splits it into the target, the
section (`subpath`) and the display text, which only a link needs and is dropped.

The caller first tries the target as a vault path on disk ('.md' optional), exactly as written;
when no note is there, `resolve_address` looks among the indexed notes the caller may read, by
these rules, the first rule with a match deciding:

1. the vault path, in any letter case;
2. Obsidian's link resolution: a bare name is the note of that file name in any folder, a partial
   path ('Notes/Idea') the note whose path ends with it;
3. a frontmatter alias (`aliases`/`alias`) of a note, in any letter case — Obsidian offers
   aliases when a link is typed and writes `[[Real name|alias]]`; an address may name the alias
   directly (also an alias holding '/', as vaults keep old paths in aliases).

Within a rule, one match is the note; of several, the one written in exactly this letter case;
otherwise the address is ambiguous and every match is a candidate. Where Obsidian, linking from a
note, silently takes the same-folder or shortest-path file among several same-named ones, an
address has no source note, so it names the candidates instead of guessing (the vault path
itself, e.g. a note at the root named like others deeper down, is rule 0 and always wins).

`readable` decides on every match before it counts, so a note the caller may not read is never a
match, a candidate or a suggestion: the answer is the same whether or not it exists.
Guarantees: pure functions over strings.
"""

from __future__ import annotations

import difflib
import heapq
import math
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from service.graph.linkpath import base_name, strip_md

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from service.numpy_lazy import np

Rule = Literal["path", "name", "alias"]
MAX_SUGGESTIONS = 5
MAX_CANDIDATES = 20
_CUTOFF = 0.6
_BOUND_FROM = 1000  # notes from which `suggestions` bounds scores with numpy (below, difflib took <16 ms)
_CELLS = 1 << 19  # character-count cells per step of `_bounds` (4 MB)
_LCS_LONGEST = 256  # names longer keep the looser bound: the LCS takes a step per character


@dataclass(frozen=True, slots=True)
class Address:
    target: str  # the note part: a path, a partial path, a name or an alias
    subpath: str | None  # 'Heading', 'A#B' or '^block-id'; None for the whole note
    display: str | None  # '|text' of a link, not used to resolve
    bracketed: bool  # written as [[...]]

    @property
    def cut(self) -> bool:
        """Whether an unbracketed address was cut at a '|' or '#' (a note named with one may be
        the whole of it: `service.graph.address.or_by_name`)."""
        return not self.bracketed and (self.display is not None or self.subpath is not None)

    @property
    def block(self) -> str | None:
        """The block id of a `#^id` section, without '^'."""
        if self.subpath is not None and self.subpath.startswith("^"):
            return self.subpath[1:].strip() or None
        return None

    @property
    def heading(self) -> list[str] | None:
        """The heading path of a `#A#B` section, outermost first."""
        if self.subpath is None or self.subpath.startswith("^"):
            return None
        parts = [p.strip() for p in self.subpath.split("#")]
        return [p for p in parts if p] or None


def parse_address(raw: str, names_a_path: Callable[[str], str | None] | None = None) -> Address:
    """Split an address (a path or a wikilink's inside, brackets optional) into its parts.

    `names_a_path`, given a text of an unbracketed address holding '#' or '|', says what it
    names on disk: "note" (an existing `Plan#2.md`), "folder" (`Home#Contribute/`), "new" (a new
    note in such a folder) or None, so names made before '#' was refused in new names stay usable,
    and names another program made with '|' (`Odd|pipe.md`, on Linux or macOS) can be named. An
    unbracketed text naming a note or a folder as a whole is not split at '|'. Then the whole text
    is that path when it is a note or a folder; else the longest text before a later '#' that is
    a note is the note and the rest its section (`Home#Contribute/Guide#Setup`, `Plan#2#Intro`);
    else a new note in a '#' folder is that path; else the first '#' splits."""
    text = raw.strip()
    bracketed = False
    if text.startswith("![[") and text.endswith("]]"):
        text, bracketed = text[3:-2], True
    elif text.startswith("[[") and text.endswith("]]"):
        text, bracketed = text[2:-2], True
    display: str | None = None
    for pipe in ("\\|", "|"):  # '\|' is the pipe as escaped inside a Markdown table
        if pipe in text and not (pipe == "|" and _whole(text, bracketed, names_a_path)):
            text, display = text.split(pipe, 1)
            display = display.strip() or None
            break
    subpath: str | None = None
    if "#" in text:
        cut = text.index("#")
        if names_a_path is not None and not bracketed:
            cut = _section_cut(text, names_a_path)
        if cut >= 0:
            text, subpath = text[:cut], text[cut + 1 :].strip() or None
    target = unicodedata.normalize("NFC", text.strip())
    if bracketed:  # '[[/Note]]' is a vault path from the root; a bare '/x' stays an (invalid) absolute path
        target = target.lstrip("/")
    return Address(target=target, subpath=subpath, display=display, bracketed=bracketed)


_LATER_CUTS = 8


def _whole(text: str, bracketed: bool, names_a_path: Callable[[str], str | None] | None) -> bool:
    """Whether the unbracketed `text` (holding '|') names a note or a folder on disk as a whole,
    or is a note named with '|' and a section after a later '#' (`Odd|pipe#Colors`)."""
    if bracketed or names_a_path is None:
        return False
    text = text.strip()
    if names_a_path(unicodedata.normalize("NFC", text)) in ("note", "folder", "new"):
        return True
    bar, at = text.index("|"), len(text)
    for _ in range(_LATER_CUTS):
        at = text.rfind("#", 0, at)
        if at <= bar:
            break
        if names_a_path(unicodedata.normalize("NFC", text[:at].strip())) == "note":
            return True
    return False


def naming(rel: str) -> Callable[[str], str | None]:
    """A `names_a_path` for an address known to name the note `rel`: "note" for a text naming it
    (its path, a partial path, its name), so what follows is the section (`Odd|pipe#Colors`)."""
    note = [NoteName(rel)]
    return lambda text: "note" if resolve_address(text, note, lambda _: True).total else None


def or_by_name(
    names_a_path: Callable[[str], str | None], notes: Iterable[NoteName], readable: Callable[[str], bool]
) -> Callable[[str], str | None]:
    """`names_a_path` (what a text names on disk) that also takes as a "note" a text naming one
    by the rules of `resolve_address` (not its aliases) among the `notes` whose path holds '#'
    or '|': a name without its folder (`Odd|pipe`, `Odd#hash` for `Themes/Odd#hash.md`) wins
    over a cut there as its path does. One scan of `notes`; each question then asks only those."""
    odd = [NoteName(n.path) for n in notes if "#" in n.path or "|" in n.path]
    if not odd:
        return names_a_path

    def names(text: str) -> str | None:
        kind = names_a_path(text)
        return kind if kind is not None or not resolve_address(text, odd, readable).total else "note"

    return names


def _section_cut(text: str, names_a_path: Callable[[str], str | None]) -> int:
    """Where `text` splits into a note and its section (-1: it is a path as a whole); see `parse_address`."""
    kind = names_a_path(unicodedata.normalize("NFC", text.strip()))
    if kind in ("note", "folder"):
        return -1
    first, at = text.index("#"), len(text)
    for _ in range(_LATER_CUTS):  # a later '#' after a note named with '#' (a few: each is a stat)
        at = text.rfind("#", 0, at)
        if at < first or (at == first and "/" in text[at:]):  # the first: in the file name ('Bar|f/New#H')
            break
        if names_a_path(unicodedata.normalize("NFC", text[:at].strip())) == "note":
            return at
    return -1 if kind == "new" else first


@dataclass(frozen=True, slots=True)
class NoteName:
    """What the resolver knows of one note: its vault path and its aliases, and, computed once,
    the forms every resolution compares (a scan of 10k notes took 6-8 ms lowering them each time).

    The path without '.md' (`stem`) and its lower case (`low`) are not held but made from the
    path when a note's file name matches: a server holds one of these per note for good, and
    they cost ~9 and ~8 MB at 100k notes (docs/benchmarks.md, tracemalloc). Every match by path
    or by name has the file name of the address, so a scan compares the held lower-case file
    name alone."""

    path: str
    aliases: tuple[str, ...] = ()
    base_low: str = field(init=False, repr=False, compare=False)  # the file name without '.md', lower case
    aliases_low: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "base_low", self.low.rpartition("/")[2])
        object.__setattr__(self, "aliases_low", tuple(a.lower() for a in self.aliases) if self.aliases else ())

    @property
    def stem(self) -> str:
        """The path without '.md'."""
        return strip_md(self.path)

    @property
    def low(self) -> str:
        """The path without '.md', lower case."""
        return strip_md(self.path).lower()


@dataclass(frozen=True, slots=True)
class Resolution:
    path: str | None  # the note, when exactly one fits
    candidates: tuple[str, ...]  # when several fit (sorted, at most MAX_CANDIDATES)
    total: int  # how many fit
    rule: Rule | None  # the rule that matched


NOTHING = Resolution(None, (), 0, None)


def _decide(hits: list[tuple[str, str]], wanted: str, rule: Rule) -> Resolution:
    """`hits` are (path, the text that matched); the exact letter case breaks a tie."""
    paths = sorted({p for p, _ in hits})
    if len(paths) == 1:
        return Resolution(paths[0], (), 1, rule)
    exact = sorted({p for p, text in hits if text == wanted})
    if len(exact) == 1:
        return Resolution(exact[0], (), 1, rule)
    pool = exact or paths
    return Resolution(None, tuple(pool[:MAX_CANDIDATES]), len(pool), rule)


def resolve_address(target: str, notes: Iterable[NoteName], readable: Callable[[str], bool]) -> Resolution:
    """The note `target` names among `notes`, by the rules in the module docstring (one pass)."""
    stem = strip_md(target.strip().strip("/"))
    if not stem:
        return NOTHING
    low = stem.lower()
    base = low.rpartition("/")[2]
    partial = "/" in stem
    tail = "/" + low  # a partial path is the end of a note's path after a '/'
    listed = list(notes)
    path_hits: list[tuple[str, str]] = []
    name_hits: list[tuple[str, str]] = []
    for note in listed:
        if note.base_low != base:  # a match by path or by name has the address's file name
            continue
        note_low = note.low
        if note_low == low:
            path_hits.append((note.path, note.stem))
        elif not partial:
            name_hits.append((note.path, note.stem.rpartition("/")[2]))
        elif note_low.endswith(tail):
            name_hits.append((note.path, note.stem[-len(stem) :]))
    rules: tuple[tuple[list[tuple[str, str]], Rule], ...] = ((path_hits, "path"), (name_hits, "name"))
    for hits, rule in rules:
        found = _decide([h for h in hits if readable(h[0])], stem, rule)
        if found.total:
            return found
    wanted = target.strip()
    key = wanted.lower()
    alias_hits = [
        (n.path, a)
        for n in listed
        if n.aliases
        for a, a_low in zip(n.aliases, n.aliases_low, strict=True)
        if a_low == key
    ]
    return _decide([h for h in alias_hits if readable(h[0])], wanted, "alias")


def suggestions(target: str, notes: Sequence[NoteName], readable: Callable[[str], bool]) -> list[str]:
    """Up to MAX_SUGGESTIONS paths of readable notes whose name (or alias) is closest to `target`'s
    name: difflib's similarity ratio, raised when one name contains the other.

    Only the first few readable notes of that order are wanted, so a large vault is not scored
    name by name (difflib over 100k names took 0.08-1.7 s): every note gets an upper bound of its
    score at once (`_bounds`), and exact scores are computed in descending bound order until no
    unscored note can still reach the order's head. The answer, and which notes `readable` is
    asked about, are those of scoring every note (tests/unit/graph/test_address.py compares)."""
    wanted = strip_md(base_name(target.strip().strip("/"))).lower()
    if not wanted:
        return []
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(wanted)
    if len(notes) < _BOUND_FROM:  # scoring all is quick here, and numpy need not be imported
        scored = [(-s, n.path.count("/"), n.path) for n in notes if (s := _score(matcher, wanted, n))]
        heapq.heapify(scored)
        return _take_readable(scored, -math.inf, readable, [])
    bound = _bounds(wanted, notes)
    order = np.flatnonzero(bound > -np.inf)
    order = order[np.argsort(-bound[order], kind="stable")].tolist()
    bounds = bound[order].tolist()
    bounds.append(-math.inf)  # after the last note that may score, nothing can
    heap: list[tuple[float, int, str]] = []
    out: list[str] = []
    for i, at in enumerate(order):
        note = notes[at]
        if score := _score(matcher, wanted, note):
            heapq.heappush(heap, (-score, note.path.count("/"), note.path))
        if len(_take_readable(heap, bounds[i + 1], readable, out)) == MAX_SUGGESTIONS:
            break
    return out


def _take_readable(
    heap: list[tuple[float, int, str]], below: float, readable: Callable[[str], bool], out: list[str]
) -> list[str]:
    """Moves the heap's head to `out` while its score beats `below`, the most any note not yet
    scored can score (strictly: an equal score may sort either way by path), keeping the readable."""
    while heap and len(out) < MAX_SUGGESTIONS and -heap[0][0] > below:
        path = heapq.heappop(heap)[2]
        if readable(path):
            out.append(path)
    return out


def _score(matcher: difflib.SequenceMatcher[str], wanted: str, note: NoteName) -> float:
    """The note's score: the best of its name's and its aliases' (0 when none is close)."""
    best = 0.0
    for name in (strip_md(base_name(note.path)), *note.aliases):
        key = name.lower()
        contains = len(key) >= 3 and (wanted in key or key in wanted)
        matcher.set_seq1(key)
        if not contains and (matcher.real_quick_ratio() < _CUTOFF or matcher.quick_ratio() < _CUTOFF):
            continue
        score = matcher.ratio()
        if score >= _CUTOFF or contains:
            best = max(best, score + (0.25 if contains else 0.0))
    return best


def _bounds(wanted: str, notes: Sequence[NoteName]) -> npt.NDArray[np.float64]:
    """Per note, at least its `_score` (-inf when it must score 0), from its names' characters.

    difflib's quick_ratio (2 * the characters two strings share as multisets / their total length)
    is at least ratio; it is computed for every name at once from per-call character counts. A
    name holding `wanted` (or held by it) shares all of the shorter one's characters, so only a
    name where that holds may get the 0.25 raise. Names that pass get the tighter ratio of their
    longest common subsequence with `wanted` (`_lcs`): the characters ratio matches, in order, are
    one. A note's bound is the highest of its names'."""
    keys = [n.base_low for n in notes]  # = strip_md(base_name(path)).lower(): '/' ends a word
    extra = [(i, a) for i, n in enumerate(notes) if n.aliases_low for a in n.aliases_low]
    keys += [a for _, a in extra]
    chars = sorted(set(wanted))
    lut = np.full(max(256, ord(chars[-1]) + 2), -1, dtype=np.int32)  # a character's index in chars
    lut[[ord(c) for c in chars]] = np.arange(len(chars))
    step = max(1, min(_CELLS // len(chars), 1 << 14))  # names per step: its temporaries stay a few MB
    name_bound = np.concatenate(
        [_names_bound(wanted, chars, lut, keys[lo : lo + step]) for lo in range(0, len(keys), step)]
    )
    bound = name_bound[: len(notes)].copy()
    if extra:
        np.maximum.at(bound, np.array([i for i, _ in extra], dtype=np.int64), name_bound[len(notes) :])
    return bound


def _names_bound(wanted: str, chars: list[str], lut: npt.NDArray[np.int32], keys: list[str]) -> npt.NDArray[np.float64]:
    """`_bounds` for some names: their quick_ratio from character counts, then their LCS ratio."""
    k = len(chars)
    lens = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    text = "".join(keys)
    try:
        codes = np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    except UnicodeEncodeError:  # one code point per str character, as difflib compares them
        codes = np.minimum(np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32), len(lut) - 1)
    slots = lut[codes]
    found = slots >= 0
    owner = np.repeat(np.arange(len(keys), dtype=np.int64), lens)[found]  # the name of each character
    cells = np.bincount(owner * k + slots[found], minlength=len(keys) * k).reshape(len(keys), k)
    want = np.array([wanted.count(c) for c in chars], dtype=np.int64)
    shared = np.minimum(cells, want).sum(axis=1)
    quick = 2.0 * shared / (lens + len(wanted))  # as difflib computes it, so the same float
    may_contain = (lens >= 3) & (shared == np.minimum(lens, len(wanted)))
    name_bound = np.where(may_contain, quick + 0.25, np.where(quick >= _CUTOFF, quick, -np.inf))
    if len(wanted) <= 64:  # tighter: ratio counts characters matched in order, at most an LCS
        which = np.flatnonzero((name_bound > -np.inf) & (lens <= _LCS_LONGEST))
        tight = 2.0 * _lcs(wanted, chars, slots, lens, which) / (lens[which] + len(wanted))
        name_bound[which] = np.where(may_contain[which], tight + 0.25, np.where(tight >= _CUTOFF, tight, -np.inf))
    return name_bound


def _lcs(
    wanted: str,
    chars: list[str],
    slots: npt.NDArray[np.int32],
    lens: npt.NDArray[np.int64],
    which: npt.NDArray[np.intp],
) -> npt.NDArray[np.int64]:
    """Per name in `which`, the length of its longest common subsequence with `wanted` (at most
    64 characters): Hyyrö's bit-parallel LCS, one bit per character of `wanted`, run for all the
    names at once, one character position per step. `slots` holds, per character of the joined
    names, its index in `chars` (-1 when `wanted` lacks it)."""
    masks = np.zeros(len(chars) + 1, dtype=np.uint64)  # the last, for slot -1, matches nothing
    for i, c in enumerate(wanted):
        masks[chars.index(c)] |= np.uint64(1 << i)
    by_length = np.argsort(-lens[which], kind="stable")  # longest first: the names still going are a prefix
    longer = -lens[which][by_length]
    starts = (np.cumsum(lens) - lens)[which][by_length]
    v = np.full(len(which), np.iinfo(np.uint64).max, dtype=np.uint64)
    for j in range(int(-longer[0]) if len(which) else 0):
        n = int(np.searchsorted(longer, -j))  # the names longer than j
        u = v[:n] & masks[slots[starts[:n] + j]]
        v[:n] = (v[:n] + u) | (v[:n] - u)  # the addition's carry out of bit 63 is meant to drop
    kept = v & np.uint64((1 << len(wanted)) - 1)
    lcs = np.empty(len(which), dtype=np.int64)
    lcs[by_length] = len(wanted) - np.unpackbits(kept.view(np.uint8)).reshape(-1, 64).sum(axis=1)
    return lcs
