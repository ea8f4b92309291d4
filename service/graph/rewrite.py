"""Rewrite the link text in one note so its links name their (possibly moved) targets.

`find_links(text)` returns every link with the character span of its target text: wikilinks
(`[[T]]`, `[[T|alias]]`, `[[T#Heading]]`, `[[T#^block]]`, `![[embed]]`, `[[T\\|alias]]` in
tables), frontmatter wikilinks (`related: "[[T]]"`) and Markdown links (`[x](T.md)`,
`[x](My%20Note.md#Head)`, `[x](<My Note.md>)`, relative `../T.md`). Code spans and fenced
blocks are skipped, as Obsidian does.

`rewrite_note` resolves each link against the vault *before* a change (`before` PathSet, seen
from the note's old path) and again *after* it (`after`, from its new path); a link whose
target no longer resolves to the same file (mapped through `moved`) gets new target text in
the style it was written in. Only the target text changes: alias, heading, block id, embed
mark and the rest of the line are kept byte for byte. Unresolved links are never touched.
A note's lines are those of its LF form (`line_ends.lf`: a CR alone ends a line, as the index and
Obsidian read it), and each keeps its own line end.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import groupby
from urllib.parse import quote, unquote

from service.budget import configured
from service.errors import ComputeBudgetExceeded, ValidationFailed
from service.graph import yaml_scalars as ys
from service.graph.linkpath import PathSet, base_name, form_of, nfc, retargeted, strip_md
from service.markdown import frontmatter as fm
from service.markdown import line_ends
from service.markdown.fences import mask_code_outside_links, outside_fences
from service.markdown.parse import MDLINK_TEXT

_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(
    r"(!?)\[" + MDLINK_TEXT + r"\]\((<[^<>\n]+>|[^()\s]+(?:\([^()\s]*\))?[^()\s]*)((?:\s+\"[^\"\n]*\")?)\)"
)  # its text as the index reads it (`[a [b] c](x.md)`)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_HREF = re.compile(r"[^()\s]+(?:\([^()\s]*\))?[^()\s]*")  # an unbracketed href, as `_MDLINK` reads one
CLOCK_EVERY = 4096  # links between two looks at the clock (`rewrite_note`'s time budget): ~40 ms of them


@dataclass(frozen=True, slots=True)
class FoundLink:
    line: int  # 0-based line number
    start: int  # span of the target text inside the line
    end: int
    target: str  # decoded target text used for resolution
    kind: str  # 'wikilink' | 'markdown'
    encoded: bool  # Markdown href written percent-encoded
    angle: bool  # Markdown href written as <...>
    style: str = ""  # a frontmatter link: its YAML scalar style (yaml_scalars.SINGLE, ...)


@dataclass(frozen=True, slots=True)
class LineChange:
    line: int  # 1-based
    before: str
    after: str


class LineChanges:
    """A note's changed lines in order: `len` counts every one, iterating gives those kept. With
    `keep` (a response's share, in bytes) the first ones are kept while they weigh at most that
    (the one that passes it too), each line weighed as a preview cuts it (to a quarter of `keep`)
    in characters, no more than its UTF-8 bytes: a preview lists no more of them than that
    (`service.tools.graph_common.change_item`). The others are only counted: a 50 MB note whose
    675,000 lines each change held ~215 MB of changed lines for a preview listing 1,400."""

    __slots__ = ("_cut", "_keep", "_kept", "_total", "_weight")

    def __init__(self, keep: int | None = None, changes: Iterable[LineChange] = ()) -> None:
        self._keep, self._cut = keep, (keep or 0) // 4
        self._kept: list[LineChange] = []
        self._total = self._weight = 0
        for c in changes:
            self.add(c)

    @classmethod
    def paired(
        cls, old: Sequence[str], new: Sequence[str], runs: Iterable[tuple[int, int, int, int]], keep: int | None = None
    ) -> LineChanges:
        """The changed lines of `runs` (`service.markdown.line_diff`: `old[i1:i2]` became
        `new[j1:j2]`), listed line by line, a run's lines paired by position: a line added past the
        run's old lines is listed with `before` empty (numbered as the line it goes before, or the
        run's last line), a line removed with `after` empty; numbers are 1-based in `old`, and a
        line's trailing CR is not shown. `old` and `new` are any sequences of lines (lists, or
        `service.markdown.lines_view.Lines` views) and `runs` is read one at a time."""
        out = cls(keep)
        for i1, i2, j1, j2 in runs:
            for k in range(max(i2 - i1, j2 - j1)):
                a = old[i1 + k] if i1 + k < i2 else ""
                b = new[j1 + k] if j1 + k < j2 else ""
                out.add(LineChange(min(i1 + k, max(i2 - 1, i1)) + 1, a.rstrip("\r"), b.rstrip("\r")))
        return out

    def add(self, change: LineChange) -> None:
        self._total += 1
        if self._keep is None:
            self._kept.append(change)
        elif self._weight <= self._keep:
            self._kept.append(change)
            cut = self._cut - 1  # a cut line is at least this long (`service.errors.cut_middle`)
            self._weight += min(len(change.before), cut) + min(len(change.after), cut) + 40

    def __len__(self) -> int:
        return self._total

    def __iter__(self) -> Iterator[LineChange]:
        return iter(self._kept)

    def __contains__(self, item: object) -> bool:
        return item in self._kept

    def __eq__(self, other: object) -> bool:  # a list: every change kept, the same ones
        if isinstance(other, LineChanges):
            return (self._total, self._kept) == (other._total, other._kept)
        return isinstance(other, list) and self._total == len(self._kept) and self._kept == other

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return f"LineChanges({self._kept!r}, total={self._total})"


@dataclass(frozen=True, slots=True)
class Rewrite:
    text: str
    changes: LineChanges

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def _mask(line: str) -> str:
    """Code spans blanked, as the index reads links (a wikilink opened first keeps its code)."""
    return mask_code_outside_links(line) if "`" in line else line


def _lines_to_scan(lines: list[str], body_line: int) -> Iterator[tuple[int, str]]:
    for no in range(body_line):
        if "[[" in lines[no]:
            yield no, lines[no]
    yield from outside_fences(lines, body_line)


def _wikilinks(no: int, line: str) -> Iterator[FoundLink]:
    for m in _WIKILINK.finditer(line):
        inner_start = m.start(2)
        inner = m.group(2)
        part = inner.partition("#")[0].partition("|")[0]  # up to the first '#' or '|'
        if part.endswith("\\"):  # '[[T\|alias]]' inside a table
            part = part[:-1]
        stripped = part.strip()
        if not stripped:
            continue
        lead = len(part) - len(part.lstrip())
        start = inner_start + lead
        yield FoundLink(no, start, start + len(stripped), stripped, "wikilink", False, False)


def _mdlinks(no: int, line: str, at: int = 0) -> Iterator[FoundLink]:
    """The Markdown links of `line` (a link's text, from `at`), each after those in its text."""
    for m in _MDLINK.finditer(line):
        if "](" in m.group(2):  # `[![i](a.png)](b.md)`: an embed in the link's text, as the index reads it
            yield from _mdlinks(no, m.group(2), at + m.start(2))
        href, start = m.group(3), at + m.start(3)
        angle = href.startswith("<")
        if angle:
            href, start = href[1:-1], start + 1
        path = href.split("#", 1)[0]
        if not path or _SCHEME.match(path):
            continue
        decoded = unquote(path)  # <...> too: a destination either way, percent-decoded as the index reads it
        yield FoundLink(no, start, start + len(path), decoded, "markdown", decoded != path, angle)


def _fold(text: str) -> str:
    """Lower case in NFC as `PathSet` compares names, with the one letter whose lower case depends
    on what follows (a final sigma, 'ς' or 'σ') made one: a name folds alike alone and in a line,
    in whichever Unicode form the line spells it."""
    return nfc(text).lower().replace("ς", "σ")


def link_names(paths: Iterable[str]) -> frozenset[str]:
    """What a link must mention to resolve to one of `paths`, or to resolve differently once
    they exist or are gone: each file's folded name ('.md' dropped), as `PathSet` finds files."""
    return frozenset(strip_md(_fold(base_name(p))) for p in paths)


def line_mentions(line: str, names: frozenset[str]) -> bool:
    """Whether `line` (or any text) holds one of `names` (`link_names`) as a link to it could spell
    it: as written, percent-decoded (a Markdown href) or YAML-unescaped (a property link), letter
    case folded as `PathSet` compares names. False means no link in it can name those files; True
    may also be a name in plain text. The rewrite's test of a line (`find_links` with `names`), and
    of an oversized note's chunks (`service.graph.oversized`)."""
    low = _fold(line)
    if any(name in low for name in names):
        return True
    if "%" in line:
        low = _fold(unquote(line))
        if any(name in low for name in names):
            return True
    if "\\" in line or "''" in line:  # a property link written with YAML escapes: `"[[H\u0075b]]"`
        low = _fold(ys.decode(ys.decode(line, ys.DOUBLE), ys.SINGLE))
        return any(name in low for name in names)
    return False


def find_links(text: str, names: frozenset[str] | None = None) -> list[FoundLink]:
    """Every link in `text`; with `names`, only those on lines that mention one of them (see
    `link_names`): the others cannot name those files, and most lines of a long note are skipped."""
    view = line_ends.lf(text)
    return list(_links(view, view.split("\n"), names))


def _links(text: str, lines: list[str], names: frozenset[str] | None) -> Iterator[FoundLink]:
    """`find_links` of `text` (split into `lines`), in order, one line's at a time: a long note's
    links are never all held (675,000 of them were 120 MB). A line is read when its links are
    asked for: the caller may change a line once its links are all given (`rewrite_note`)."""
    body_line = fm.fences(text).body_line
    front: list[FoundLink] = []
    in_front = True
    for no, raw in _lines_to_scan(lines, body_line):
        if "[" not in raw or (names is not None and not line_mentions(raw, names)):
            continue  # every link starts with '[': most lines have none (no masking, no regex)
        masked = _mask(raw)
        found = list(_wikilinks(no, masked))
        if no < body_line:
            front.extend(found)  # front lines come first
            continue
        if "](" in masked:  # a Markdown link has it: most lines (wikilinks only) skip the regex and the sort
            found.extend(_mdlinks(no, masked))
            found.sort(key=lambda f: f.start)
        if in_front:
            yield from _property_links(lines, body_line, front)
            in_front = False
        yield from found
    if in_front:
        yield from _property_links(lines, body_line, front)


def _property_links(lines: list[str], body_line: int, found: list[FoundLink]) -> list[FoundLink]:
    """The frontmatter's links (`found`, in order), each target read as YAML does."""
    if not found:
        return found
    opener = {(f.line, f.start): lines[f.line].rfind("[[", 0, f.start) for f in found}
    at = ys.styles(lines, body_line, [*opener, *((no, col) for (no, _), col in opener.items())])
    # `up: [[Hub]]` unquoted is YAML's nested list [["Hub"]], no link (as the index and Obsidian
    # read it): left as written, like any other list value. `styles` says where a value starts
    # with `[`; YAML's scanner confirms it (a line continuing a plain scalar starts no value).
    lists = {(no, col) for (no, _), col in opener.items() if at.get((no, col)) == ys.FLOW}
    if lists:
        lists &= ys.flow_lists(lines, body_line)
    return [
        _styled(f, at.get((f.line, f.start), ys.LITERAL))
        for f in found
        if (f.line, opener[(f.line, f.start)]) not in lists
    ]


def _styled(link: FoundLink, style: str) -> FoundLink:
    target = ys.decode(link.target, style)
    return FoundLink(link.line, link.start, link.end, target, link.kind, link.encoded, link.angle, style)


def _encode(text: str, link: FoundLink) -> str:
    if link.style:
        return ys.encode(text, link.style)
    if link.kind != "markdown":
        return text
    if link.angle:  # `<...>` holds spaces and brackets; a '%' would be decoded when read, a '#' cut
        return quote(text, safe="/!$&'()*+,;=:@~-._") if link.encoded else text.replace("%", "%25").replace("#", "%23")
    if link.encoded:
        href = quote(text, safe="/!$&'()*+,;=:@~-._")
        # Brackets are kept only as an href may hold them (one balanced pair): `C).md` would end it.
        return href if _HREF.fullmatch(href) else href.replace("(", "%28").replace(")", "%29")
    # A space or bracket would end an unencoded Markdown href, a '#' start its heading: encode just those.
    return text.replace("%", "%25").replace(" ", "%20").replace("(", "%28").replace(")", "%29").replace("#", "%23")


def _new_text(
    target: str,
    source_before: str,
    source_after: str,
    before: PathSet,
    after: PathSet,
    moved: Mapping[str, str],
    only_targets: frozenset[str] | None,
) -> str | None:
    """The text a link written `target` (decoded, before its encoding) is rewritten to, or None
    when it stays: it resolves to nothing, to a file not in `only_targets`, or still rightly."""
    old_target = before.resolve(target, source_before)
    if old_target is None or (only_targets is not None and old_target not in only_targets):
        return None
    new_target = retargeted(target, old_target, source_after, after, moved)
    if new_target is None:
        return None
    return after.link_text(new_target, source_after, form_of(target, old_target))


def _too_long(path: str, seconds: float, seen: int) -> ComputeBudgetExceeded:
    return ComputeBudgetExceeded(
        f"rewriting the links of {path!r} exceeded its time budget ({seen} links read)",
        details={"path": path, "limit": "seconds", "max_seconds": seconds},
        hint="The note holds more links than one call rewrites in [limits] max_eval_seconds: an operator can "
        "raise it (VAULTGATE_LIMITS__MAX_EVAL_SECONDS), or split the note. Nothing was changed.",
    )


def rewrite_note(
    text: str,
    *,
    source_before: str,
    source_after: str,
    before: PathSet,
    after: PathSet,
    moved: Mapping[str, str],
    only_targets: frozenset[str] | None = None,
    names: frozenset[str] | None = None,
    keep: int | None = None,
) -> Rewrite:
    """New text for a note whose links may need to follow `moved` (old path -> new path).

    `names`: `link_names` of every path that `before` and `after` do not share (and of
    `only_targets`). A note that stays where it is then looks only at the links on lines that
    mention one: any other link resolves alike before and after, to a file that does not move
    (the same text as without `names`, for a hub note's thousands of long backlinking notes).
    `keep`: how many of the changed lines are kept, not only counted (`LineChanges`).
    A note whose links take longer than `[limits] max_eval_seconds` to rewrite (the clock looked at
    every `CLOCK_EVERY` links: several hundred thousand links) is `compute_budget_exceeded` (limit
    `seconds`): a move's preview of it ran unbounded (S1 s85: 50 s for 1,000,000 links)."""
    view = line_ends.lf(text)  # a CR-only note's lines (it was one line: IndexError past its frontmatter)
    lines = view.split("\n")
    changes = LineChanges(keep)
    found = _links(view, lines, names if source_before == source_after else None)
    # Each target text's new text (None: kept as written), decided once: it depends on nothing
    # else, and a note's links name a few targets many times (S1 s85: a note linking to the moved
    # one 100,000 times resolved the same text three to five times over for each link).
    decided: dict[str, str | None] = {}
    seconds = configured().max_eval_seconds
    deadline, seen = time.monotonic() + seconds, 0
    for no, links in groupby(found, key=lambda f: f.line):
        spans: list[tuple[int, int, str]] = []
        plain: list[int] = []  # columns of rewritten links in plain YAML scalars
        for link in links:
            seen += 1
            if seen % CLOCK_EVERY == 0 and time.monotonic() > deadline:
                raise _too_long(source_before, seconds, seen)
            if link.target in decided:
                written = decided[link.target]
            else:
                written = decided[link.target] = _new_text(
                    link.target, source_before, source_after, before, after, moved, only_targets
                )
            if written is None:
                continue
            spans.append((link.start, link.end, _encode(written, link)))
            if link.style == ys.PLAIN:
                plain.append(link.start)
        if not spans:
            continue
        original = lines[no]
        line = original
        for start, end, new in sorted(spans, reverse=True) if len(spans) > 1 else spans:
            line = line[:start] + new + line[end:]
        if plain:
            line = ys.requote_plain(original, line, min(plain))
        if line != original:
            lines[no] = line  # its links were all given: `_links` reads it no more
            changes.add(LineChange(no + 1, original.rstrip("\r"), line.rstrip("\r")))
    new_text = joined(text, view, lines)
    if changes and next(iter(changes)).line <= fm.fences(text).body_line:
        _same_properties(text, new_text, source_before)
    return Rewrite(new_text, changes)


def joined(text: str, view: str, lines: list[str]) -> str:
    """`lines` (of `view`, the LF form of `text`) joined by `text`'s own line ends: a CR alone stays one."""
    if view is text:
        return "\n".join(lines)
    ends = [text[m.start()] for m in re.finditer("\n", view)]
    return "".join(line + end for line, end in zip(lines, [*ends, ""], strict=True))


_TARGET = re.compile(r"\[\[[^\[\]|]*")


def _same_properties(text: str, new_text: str, source: str) -> None:
    """Refuse a rewrite after which the note's properties no longer parse, or read differently
    other than in link targets (a YAML form the scalar quoting above does not cover)."""
    before, after = fm.split(text), fm.split(new_text)
    if before.error is not None:
        return  # unreadable already: the rewrite of its link text makes it no worse
    if after.error is None and _unlinked(before.data) == _unlinked(after.data):
        return
    why = after.error or "a property's value would change other than its link target"
    raise ValidationFailed(
        f"cannot rewrite the property links of {source!r}: its frontmatter would not read back ({why})",
        details={"path": source, "reason": "frontmatter_rewrite"},
        hint="Quote that note's property value by hand (YAML '...' or \"...\"), then retry; or pick another name.",
    )


def _unlinked(value: object) -> object:
    if isinstance(value, str):
        return _TARGET.sub("[[", value)
    if isinstance(value, dict):
        return {k: _unlinked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unlinked(v) for v in value]
    return value
