"""Unlinked mentions: where a note's text names another note (its file name, title or an alias)
without linking it — Obsidian's "unlinked mentions", as link suggestions.

`NameIndex` holds the names to look for by their lower-case words, and for each first word the
word counts of the names it starts. A note's text is split into words (`\\w+`, so a match starts
and ends on word boundaries; in scripts written without spaces, Chinese, Japanese, Thai and the
like, each character is a word, as the word index reads them: `retrieval.unspaced.WORDS`, so
機械学習 is found in a sentence holding it whole, never where only some of its characters or
pairs are); at each word, the names it starts are tried longest first by
looking up the words that follow, and a hit is checked against the text itself, letter case
aside (so `Q&A basics` does not match `Q A basics`), except for a name written in capitals (an
acronym: `CAN`, `SAR`), matched only so (`Can lead to` names no `CAN` bus). Matches do not overlap: the longest at the
leftmost position wins. Left out: the frontmatter, code (fenced and indented blocks, inline
code; `service.markdown.fences`), the text of links, embeds, URLs, HTML comments, tags, callout
types and block ids, the note's own names, and every note the note already links to. A name
without a letter (dates of daily notes, numbers) or shorter than `MIN_NAME` characters is not
looked for, except two characters of such a script (東京, 학교: a word there). When several
notes share a name, the one Obsidian would pick from the mentioning note is suggested (the name
at the vault's top, the same folder, then the shortest path); a name that is an alias of several
notes is not looked for. Pure: the text and the names come in, plain records go out.
About 0.9 ms per note of the standard workload (docs/tools-guide.md, "Graph analytics").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from service.graph.linkpath import base_name, folder_of, strip_md
from service.markdown import line_ends
from service.markdown.fences import outside_code
from service.markdown.frontmatter import fences
from service.obsidian.link_order import closeness
from service.retrieval.unspaced import WORDS, unspaced

NameKind = Literal["name", "title", "alias"]
MIN_NAME = 3
MAX_WORDS = 12  # longer names are not looked for

_WORD = WORDS
_PLAIN = re.compile(r"\w+")  # words as written with spaces: a name of more than MAX_WORDS is not looked for
_LETTER = re.compile(r"[^\W\d_]")
# Spans whose words are no mention: links, embeds, inline code, URLs, HTML comments on one line.
_MASK = re.compile(
    r"!?\[\[[^\]\n]*\]\]"
    r"|!?\[[^\]\n]*\]\([^)\n]*\)"
    r"|(`+).+?\1"
    r"|\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+"
    r"|<!--.*?-->"
    r"|(?<![\w#])#[^\s#]+"  # a tag
    r"|\[![\w-]+\][+-]?"  # a callout's type
    r"|(?:^|(?<=\s))\^[A-Za-z0-9-]+\s*$"  # a block id
)


@dataclass(frozen=True, slots=True)
class Name:
    text: str  # as the note names itself
    words: tuple[str, ...]  # lower-case words
    kind: NameKind
    targets: tuple[str, ...]  # notes with this name, by path


@dataclass(frozen=True, slots=True)
class Mention:
    source: str  # the mentioning note
    line: int  # 0-based line in the note's file
    text: str  # that line
    start: int  # character offsets of the mention in the line
    end: int
    mention: str  # the words as written
    target: str  # the note mentioned
    kind: NameKind  # how the mention names it


def _usable(text: str) -> bool:
    return (len(text) >= MIN_NAME or len(text) == 2 and unspaced(text)) and _LETTER.search(text) is not None


class NameIndex:
    """The names of a set of notes, for `mentions`. Build once per vault state and reuse."""

    def __init__(self, notes: Iterable[tuple[str, str, Iterable[str]]]) -> None:
        """`notes`: (path, title, aliases) of every note that may be mentioned."""
        found: dict[tuple[str, ...], tuple[str, NameKind, list[str]]] = {}
        alias_owners: dict[tuple[str, ...], set[str]] = {}
        for path, title, aliases in sorted(notes, key=lambda n: n[0]):
            own: list[tuple[str, NameKind]] = [(strip_md(base_name(path)), "name"), (title, "title")]
            own += [(str(a), "alias") for a in aliases]
            for text, kind in own:
                text = text.strip()
                words = tuple(w.lower() for w in _WORD.findall(text))
                if not words or len(_PLAIN.findall(text)) > MAX_WORDS or not _usable(text):
                    continue
                if kind == "alias":
                    alias_owners.setdefault(words, set()).add(path)
                known = found.get(words)
                if known is None:
                    found[words] = (text, kind, [path])
                elif path not in known[2]:
                    known[2].append(path)
        self.by_words: dict[tuple[str, ...], Name] = {}
        self.lengths: dict[str, tuple[int, ...]] = {}  # first word -> word counts of its names, longest first
        widths: dict[str, set[int]] = {}
        for words, (text, kind, targets) in found.items():
            if len(alias_owners.get(words, ())) > 1 and kind == "alias":
                continue  # an alias several notes carry names none of them
            self.by_words[words] = Name(text, words, kind, tuple(targets))
            widths.setdefault(words[0], set()).add(len(words))
        self.lengths = {first: tuple(sorted(n, reverse=True)) for first, n in widths.items()}

    def __len__(self) -> int:
        return len(self.by_words)


def closest(targets: tuple[str, ...], source: str) -> str:
    """The note a bare name picks from `source` among same-named notes, as Obsidian resolves it
    (`linkpath.PathSet.resolve`): the name as a path from the vault's top, else the note in
    `source`'s folder, else the shortest path. The suggested link is `[[<its file name>]]`, so a
    note at the top with the file name of the one picked is what that link names."""
    if len(targets) == 1:
        return targets[0]
    here = folder_of(source)
    same = [t for t in targets if folder_of(t) == here]
    pick = same[0] if same else min(targets, key=closeness)
    name = base_name(pick).lower()
    top = [t for t in targets if "/" not in t and t.lower() == name]
    return top[0] if top else pick


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    lines = line_ends.lf(text).split("\n")  # a CR alone ends a line, as `fences` counts them
    yield from outside_code(lines, fences(text).body_line)


def _masked(line: str) -> str:
    return _MASK.sub(lambda m: " " * len(m.group(0)), line)


def prose(text: str) -> str:
    """`text` with only the words a mention may be made of: the lines of its prose (no
    frontmatter, no code), links, embeds, URLs, comments, tags and the like blanked out."""
    return "\n".join(_masked(line) for _, line in _prose_lines(text))


def mentions(source: str, text: str, names: NameIndex, linked: Iterable[str] = ()) -> list[Mention]:
    """Unlinked mentions in note `source` (whose file text is `text`) of the notes in `names`,
    leaving out `source` itself and the notes in `linked` (those it already links to); in file
    order."""
    skip = {source, *linked}
    out: list[Mention] = []
    for no, raw in _prose_lines(text):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        masked = _masked(line)
        low = masked.lower()
        found = list(_WORD.finditer(masked))
        words = [m.group(0).lower() for m in found]
        i = 0
        while i < len(words):
            width = 0
            for n in names.lengths.get(words[i], ()):
                name = names.by_words.get(tuple(words[i : i + n])) if i + n <= len(words) else None
                if name is None:
                    continue
                start, end = found[i].start(), found[i + n - 1].end()
                if low[start:end] != name.text.lower() or (name.text.isupper() and masked[start:end] != name.text):
                    continue  # an acronym (`CAN`, `BAD`) only in capitals: no 'Can lead to', 'Bad for
                width = n
                if source not in name.targets:  # the note's own name: no suggestion, nor of names inside it
                    target = closest(name.targets, source)
                    if target not in skip:
                        out.append(Mention(source, no, line, start, end, line[start:end], target, name.kind))
                break
            i += width or 1
    return out
