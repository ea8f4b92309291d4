"""The links a new note takes over from another note of its name, and those a deleted note
passes on to another note of its name.

Obsidian resolves a name that several notes share to the name as a path from the vault's top,
else the one in the linking note's folder, else the one with the shortest path
(`service.obsidian.link_order`, `linkpath.PathSet.resolve`), and creating a note rewrites no
link: Obsidian rewrites links only when their file is renamed (a new same-named note "does not
update until rename", obsidian-folder-notes#147). So a new 'A/Idea.md'
silently becomes what `[[Idea]]` names wherever 'Projects/Notes/Idea.md' was the one it named; the
index follows (`service.indexer.rows` resolves the same-named notes' links again), and so do
get_backlinks, find_broken_links and the graph tools. Deleting one of several same-named notes
likewise sends its links to the next closest one, where no broken link shows it. A writing tool
asks this module, before it writes, which links that will be, so its answer can say so.

Only notes take links over here (the index's `notes` rows hold each note's lower-case name); an
attachment copied beside a same-named one is not looked for. Reads the index only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from service.graph.linkpath import PathSet, base_name, strip_md
from service.storage.db import Database

_CHUNK = 500  # stay far below SQLite's bound-parameter limit


@dataclass(frozen=True, slots=True)
class TakenLink:
    source: str  # the note holding the link
    line: int  # 0-based, as the index stores it
    target: str  # the link's target as written
    was: str  # the note it named before
    now: str  # the note it names after the change


async def links_taken(db: Database, vault_id: str, new: Sequence[str]) -> list[TakenLink]:
    """The indexed links that name another note now and will name one of the notes `new` (vault
    paths about to be written) once they exist, in note and line order. A path already a note
    takes nothing (the vault's notes do not change)."""
    return await _links_moving(db, vault_id, added=new, removed=())


async def links_passed_on(db: Database, vault_id: str, gone: str) -> list[TakenLink]:
    """The indexed links that name note `gone` now and will name another note of its name once it
    is deleted (Obsidian's rules again: the next closest): they do not turn broken, so
    find_broken_links never shows them. A link left naming nothing is not one of them."""
    return await _links_moving(db, vault_id, added=(), removed=(gone,))


async def _links_moving(db: Database, vault_id: str, added: Sequence[str], removed: Sequence[str]) -> list[TakenLink]:
    """The indexed links to notes named like `added` or `removed` that resolve to another note once
    the notes `added` exist and the notes `removed` are gone (`now`: where; never None)."""
    notes = [p for p in (*added, *removed) if p.lower().endswith(".md")]
    names = sorted({strip_md(base_name(p)).lower() for p in notes})
    if not names:
        return []

    def run(conn: sqlite3.Connection) -> list[TakenLink]:
        marks = ",".join("?" * len(names))
        sql = f"SELECT path FROM notes WHERE vault_id = ? AND name IN ({marks})"
        same = [str(r[0]) for r in conn.execute(sql, (vault_id, *names))]
        there = {p.lower() for p in same}
        made = [p for p in added if p.lower().endswith(".md") and p.lower() not in there]
        gone = set(removed) & set(same)
        if not same or not (made or gone):
            return []
        after = PathSet([*(p for p in same if p not in gone), *made])  # every file such a link can name
        asked = sorted(gone) if gone and not made else same  # a delete moves only the links to the note gone
        out: list[TakenLink] = []
        for i in range(0, len(asked), _CHUNK):
            chunk = asked[i : i + _CHUNK]
            rows = conn.execute(
                "SELECT s.path, l.line, l.target_raw, l.target_path FROM links l JOIN notes s ON s.id = l.src_id "
                f"WHERE l.vault_id = ? AND l.target_path IN ({','.join('?' * len(chunk))})",
                (vault_id, *chunk),
            )
            for src, line, raw, was in rows:
                if src in gone:
                    continue  # a link in the note deleted goes with it
                now = after.resolve(str(raw), str(src))
                if now is not None and now != was:
                    out.append(TakenLink(str(src), int(line), str(raw).strip(), str(was), now))
        return sorted(out, key=lambda t: (t.source, t.line, t.target))

    return await db.run_read(run)
