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
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from service.graph.linkpath import base_name, strip_md

Rule = Literal["path", "name", "alias"]
MAX_SUGGESTIONS = 5
MAX_CANDIDATES = 20
_CUTOFF = 0.6


@dataclass(frozen=True, slots=True)
class Address:
    target: str  # the note part: a path, a partial path, a name or an alias
    subpath: str | None  # 'Heading', 'A#B' or '^block-id'; None for the whole note
    display: str | None  # '|text' of a link, not used to resolve
    bracketed: bool  # written as [[...]]

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


def parse_address(raw: str) -> Address:
    """Split an address (a path or a wikilink's inside, brackets optional) into its parts."""
    text = raw.strip()
    bracketed = False
    if text.startswith("![[") and text.endswith("]]"):
        text, bracketed = text[3:-2], True
    elif text.startswith("[[") and text.endswith("]]"):
        text, bracketed = text[2:-2], True
    display: str | None = None
    for pipe in ("\\|", "|"):  # '\|' is the pipe as escaped inside a Markdown table
        if pipe in text:
            text, display = text.split(pipe, 1)
            display = display.strip() or None
            break
    subpath: str | None = None
    if "#" in text:
        text, subpath = text.split("#", 1)
        subpath = subpath.strip() or None
    target = unicodedata.normalize("NFC", text.strip())
    if bracketed:  # '[[/Note]]' is a vault path from the root; a bare '/x' stays an (invalid) absolute path
        target = target.lstrip("/")
    return Address(target=target, subpath=subpath, display=display, bracketed=bracketed)


@dataclass(frozen=True, slots=True)
class NoteName:
    """What the resolver knows of one note: its vault path and its aliases (and, computed once,
    the forms every resolution compares: a scan of 10k notes took 6-8 ms lowering them each time)."""

    path: str
    aliases: tuple[str, ...] = ()
    stem: str = field(init=False, repr=False, compare=False)  # the path without '.md'
    low: str = field(init=False, repr=False, compare=False)  # ... in lower case
    base_low: str = field(init=False, repr=False, compare=False)  # its file name part
    aliases_low: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        stem = strip_md(self.path)
        low = stem.lower()
        object.__setattr__(self, "stem", stem)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "base_low", low.rpartition("/")[2])
        object.__setattr__(self, "aliases_low", tuple(a.lower() for a in self.aliases))


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
    tail = "/" + low if "/" in stem else None
    listed = list(notes)
    path_hits: list[tuple[str, str]] = []
    name_hits: list[tuple[str, str]] = []
    for note in listed:
        note_low = note.low
        if note_low == low:
            path_hits.append((note.path, note.stem))
        elif tail is not None:
            if note_low.endswith(tail):
                name_hits.append((note.path, note.stem[-len(stem) :]))
        elif note.base_low == low:
            name_hits.append((note.path, note.stem.rpartition("/")[2]))
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
    name: difflib's similarity ratio, raised when one name contains the other."""
    wanted = strip_md(base_name(target.strip().strip("/"))).lower()
    if not wanted:
        return []
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(wanted)
    scored: list[tuple[float, str]] = []
    for note in notes:
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
        if best:
            scored.append((best, note.path))
    scored.sort(key=lambda s: (-s[0], s[1].count("/"), s[1]))
    out: list[str] = []
    for _, path in scored:
        if readable(path):
            out.append(path)
            if len(out) == MAX_SUGGESTIONS:
                break
    return out
