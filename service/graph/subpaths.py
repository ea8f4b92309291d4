"""Links into a part of a note that the note does not have: a `#Heading` (or a `#A#B` heading
path) or a `#^block` naming no heading or block id of the note the link resolves to — a link
written before someone renamed a heading, or to a block id since deleted. What
`find_broken_links` lists besides the links to no note.

Read as Obsidian reads a link's section (its help, "Internal links"):
- a heading path's parts are matched in order, each among the headings inside the section of the
  one before it, at any deeper level (`[[Help and support#Questions and advice#Report bugs and
  request features]]`); a first part names any heading of the note;
- a part and a heading are compared as Obsidian writes a link to a heading: the characters a link
  cannot hold (`# | ^ : %% [[ ]]`) and other punctuation read as spaces, runs of white space as
  one, in any letter case (`sections.link_key`, what `read_note` also accepts for a heading):
  `## Step 1: Setup` is `[[Note#Step 1 Setup]]`; several headings alike are not a problem (the
  link goes to the first);
- a block id in any letter case (`^Abc` is `^abc`);
- `[[#Heading]]` and `[](#Heading)` point into their own note;
- a section of a file that is not a Markdown note (`![[image.png#interface]]`, `[[doc.pdf#page=3]]`,
  a canvas) is no heading or block: never checked; nor an empty one (`[[Note#]]`, `[[Note#^]]`).

The headings and block ids are the index's (`headings`, `blocks`: outside code and comments, as
`parse_note` reads them), read with the links in one read of the reader's thread; the target's
nearest headings or block ids (`suggestions`) are ranked for the page shown only. The index holds
only the first `[limits] max_indexed_note_chars` characters of a note: a link into a longer note
is checked again against its file by the caller (`Problem.target_size`).
"""

from __future__ import annotations

import difflib
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from service.gcpause import paused
from service.graph.address import Address
from service.graph.queries import Edge
from service.markdown.sections import link_key, link_text
from service.storage.db import Database

Reason = Literal["no_heading", "no_block"]
MAX_SUGGESTIONS = 5
MAX_COMPARED = 500  # headings or block ids of one target a missing one is ranked against
_CHUNK = 500  # stay far below SQLite's bound-parameter limit

_SQL = """
SELECT s.path, s.title, l.line, l.target_raw, l.target_path, t.title,
       l.subpath, l.alias, l.embed, l.kind, l.property, t.id, t.size, l.id
FROM links l
JOIN notes s ON s.id = l.src_id
JOIN notes t ON t.vault_id = l.vault_id AND t.path = l.target_path
WHERE l.vault_id = ? AND l.subpath IS NOT NULL AND l.target_path IS NOT NULL
  AND lower(l.target_path) LIKE '%.md'
ORDER BY s.path, l.line, l.id
"""


@dataclass(frozen=True, slots=True)
class Problem:
    edge: Edge
    reason: Reason
    target_id: int
    target_size: int  # bytes: a note longer than the index reads is checked again against its file
    heading: tuple[str, ...] = ()  # the heading path named, outermost first ('no_heading')
    block: str = ""  # the block id named, without '^' ('no_block')


def section_address(subpath: str | None) -> Address:
    """A link's section as an address's: its `heading` path or `block` id."""
    return Address(target="", subpath=subpath, display=None, bracketed=True)


def _named(subpath: str) -> tuple[Reason, tuple[str, ...], str] | None:
    """What a link's section names: ('no_block', (), id) or ('no_heading', parts, ''); None: nothing."""
    address = section_address(subpath)
    if address.block is not None:
        return "no_block", (), address.block
    if address.heading is not None:
        return "no_heading", tuple(address.heading), ""
    return None


def _windows(headings: list[tuple[int, str]], keys: Iterable[str]) -> list[tuple[int, int, int]]:
    """The sections ([start, end) of `headings`, their level) the heading path whose parts'
    `link_key`s are `keys` names; [] when it names none. `headings`: (level, `link_key` of the
    text), in note order."""
    windows = [(0, len(headings), 0)]
    for key in keys:
        found: dict[int, tuple[int, int, int]] = {}
        for start, end, floor in windows:
            for i in range(start, end):
                level, text = headings[i]
                if level > floor and text == key and i not in found:
                    j = i + 1
                    while j < end and headings[j][0] > level:
                        j += 1
                    found[i] = (i + 1, j, level)
        if not found:
            return []
        windows = list(found.values())
    return windows


def _chunks(ids: list[int]) -> Iterable[tuple[str, list[int]]]:
    for i in range(0, len(ids), _CHUNK):
        chunk = ids[i : i + _CHUNK]
        yield ",".join("?" * len(chunk)), chunk


def _headings(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, list[tuple[int, str, str]]]:
    """(level, link key, text) of the headings of notes `ids`, in note order."""
    out: dict[int, list[tuple[int, str, str]]] = defaultdict(list)
    for marks, chunk in _chunks(sorted(set(ids))):
        sql = f"SELECT note_id, level, text FROM headings WHERE note_id IN ({marks}) ORDER BY note_id, line"
        for note, level, text in conn.execute(sql, chunk):
            out[int(note)].append((int(level), link_key(str(text)), str(text)))
    return out


def _blocks(conn: sqlite3.Connection, ids: Iterable[int]) -> dict[int, list[str]]:
    """The block ids of notes `ids`, in note order."""
    out: dict[int, list[str]] = defaultdict(list)
    for marks, chunk in _chunks(sorted(set(ids))):
        sql = f"SELECT note_id, block_id FROM blocks WHERE note_id IN ({marks}) ORDER BY note_id, line"
        for note, block in conn.execute(sql, chunk):
            out[int(note)].append(str(block))
    return out


def _edge(r: Any) -> Edge:
    return Edge(
        source=str(r[0]),
        source_title=str(r[1]),
        line=int(r[2]),
        target_raw=str(r[3]),
        target_path=str(r[4]),
        target_title=str(r[5]),
        subpath=str(r[6]),
        alias=None if r[7] is None else str(r[7]),
        embed=bool(r[8]),
        kind=str(r[9]),
        property=None if r[10] is None else str(r[10]),
        link_id=int(r[13]),
    )


class SubpathLinks:
    """Subpath checks over one database; each method takes the vault id."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def problems(self, vault_id: str, readable: Callable[[str], bool] | None = None) -> list[Problem]:
        """Links to a readable note naming a heading or block it lacks (per the index), by source
        path, line and position; sources are not filtered here (a link to a note `readable`
        denies is a link to no note: `GraphQueries.broken` lists it)."""

        def run(conn: sqlite3.Connection) -> list[Problem]:
            seen: dict[str, bool] = {}
            names: dict[str, tuple[Reason, tuple[str, ...], str] | None] = {}  # per subpath as written
            pending: list[tuple[Any, tuple[Reason, tuple[str, ...], str]]] = []
            with paused():
                for r in conn.execute(_SQL, (vault_id,)):
                    if readable is not None:
                        target = str(r[4])
                        ok = seen.get(target)
                        if ok is None:
                            ok = seen[target] = readable(target)
                        if not ok:
                            continue
                    subpath = str(r[6])
                    named = names[subpath] if subpath in names else names.setdefault(subpath, _named(subpath))
                    if named is not None:
                        pending.append((r, named))
                want: dict[Reason, set[int]] = {"no_heading": set(), "no_block": set()}
                for r, named in pending:
                    want[named[0]].add(int(r[11]))
                headings = _headings(conn, want["no_heading"])
                blocks = {
                    note: {b.casefold() for b in found} for note, found in _blocks(conn, want["no_block"]).items()
                }
                keyed = {note: [(level, key) for level, key, _ in found] for note, found in headings.items()}
                tops = {note: {key for _, key in found} for note, found in keyed.items()}
                keys: dict[tuple[str, ...], tuple[str, ...]] = {}
                out: list[Problem] = []
                for r, (reason, parts, block) in pending:
                    note = int(r[11])
                    if reason == "no_block":
                        if block.casefold() in blocks.get(note, ()):
                            continue
                    else:
                        key = keys.get(parts) or keys.setdefault(parts, tuple(link_key(p) for p in parts))
                        if key[-1] in tops.get(note, ()) and (len(key) == 1 or _windows(keyed[note], key)):
                            continue
                    out.append(Problem(_edge(r), reason, note, int(r[12] or 0), parts, block))
            return out

        return await self.db.run_read(run)

    async def suggestions(self, problems: list[Problem]) -> list[list[str]]:
        """For each problem, up to `MAX_SUGGESTIONS` subpaths of its target to write instead, the
        closest to the one written first: a block id as '^id'; a heading as a link writes it
        (`sections.link_text`, as get_outline's `link`: `## Step 1: Setup` as 'Step 1 Setup'),
        ranked by the path's last part, under the parts before it that name a section with
        headings ('Plan#Goals' for `#Plan#Gaols`)."""

        def run(conn: sqlite3.Connection) -> list[list[str]]:
            headings = _headings(conn, (p.target_id for p in problems if p.reason == "no_heading"))
            blocks = _blocks(conn, (p.target_id for p in problems if p.reason == "no_block"))
            memo: dict[tuple[int, str], list[str]] = {}
            out: list[list[str]] = []
            for p in problems:
                key = (p.target_id, p.edge.subpath or "")
                if key not in memo:
                    if p.reason == "no_block":
                        memo[key] = [f"^{b}" for b in _closest(p.block, blocks.get(p.target_id, []), str.casefold)]
                    else:
                        memo[key] = _heading_suggestions(list(p.heading), headings.get(p.target_id, []))
                out.append(memo[key])
            return out

        return await self.db.run_read(run)


def _closest(wanted: str, present: list[str], key: Callable[[str], str]) -> list[str]:
    """Up to `MAX_SUGGESTIONS` of `present` (its first `MAX_COMPARED`), most like `wanted` first
    (by `key`); the note order among equals."""
    compared = list(dict.fromkeys(present[:MAX_COMPARED]))
    goal = key(wanted)
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(goal)
    scored: list[tuple[float, int, str]] = []
    for i, text in enumerate(compared):
        matcher.set_seq1(key(text))
        scored.append((-matcher.ratio(), i, text))
    scored.sort()
    return [text for _, _, text in scored[:MAX_SUGGESTIONS]]


def _heading_suggestions(parts: list[str], headings: list[tuple[int, str, str]]) -> list[str]:
    keyed = [(level, key) for level, key, _ in headings]
    found = [(0, [(0, len(headings), 0)])]  # (parts found, their sections): the whole note first
    for depth in range(1, len(parts)):  # the leading parts of the path that name a section
        named = _windows(keyed, [link_key(p) for p in parts[:depth]])
        if not named:
            break
        found.append((depth, named))
    for depth, windows in reversed(found):  # the deepest section with headings inside
        inside = sorted({i for start, end, floor in windows for i in range(start, end) if headings[i][0] > floor})
        if inside:
            names = [link_text(headings[i][2]) for i in inside]
            lead = "".join(f"{part}#" for part in parts[:depth])
            return [lead + name for name in _closest(parts[-1], names, link_key)]
    return []
