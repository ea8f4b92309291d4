"""The notes whose frontmatter property values hold a wikilink naming a file (`up: "[[Hub]]"`,
`related: ["[[Hub|h]]"]`), read from the values themselves, so a move or `rewrite_links`
rewrites them as Obsidian (1.4+) does.

The index's `links` rows hold these links too since property links are indexed
(`service.markdown.property_links` reads them at parse time, `links.property` names the key), so
the links query of a move finds the same notes; this second way reads `note_properties` (list
items one row each; a nested value as its JSON): it keeps the notes where a value holding `[[`
names a wanted file name (folded as `link_names` folds it), whatever the link rows hold (a note
whose link rows the row cap cut). `rewrite_note` then rewrites the frontmatter line itself, the
YAML around the target text kept byte for byte.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection

from service.graph.rewrite import link_names
from service.storage.db import Database

_TARGET = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
NAMES_IN_SQL = 16


def _like(name: str) -> str:
    """A LIKE pattern for a value (lower-cased, `value_lower`) that may hold the folded `name`: `%`,
    `_` and the escape character escaped; `σ` is any one character (a value may spell it `ς`)."""
    escaped = name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return "%" + escaped.replace("σ", "_") + "%"


def _named(value: str, names: Collection[str]) -> bool:
    """Whether a property value holds a wikilink whose file name is one of `names`."""
    for m in _TARGET.finditer(value):
        target = re.split(r"[#|]", m.group(1), maxsplit=1)[0].rstrip("\\").strip()
        if target and not link_names([target]).isdisjoint(names):
            return True
    return False


async def property_sources(db: Database, vault_id: str, names: Collection[str]) -> list[str]:
    """Notes with a frontmatter property whose value (or list item, or a nested value) holds a
    wikilink to one of the folded file `names` (any folder; resolved or not)."""
    wanted = frozenset(names)
    if not wanted:
        return []

    # A few names (a note's move) are looked for in SQL too: only the values holding one are read.
    likes = [_like(name) for name in sorted(wanted)] if len(wanted) <= NAMES_IN_SQL else []
    named = f" AND ({' OR '.join(['p.value_lower LIKE ? ESCAPE ?'] * len(likes))})" if likes else ""

    def run(conn: sqlite3.Connection) -> list[str]:
        sql = (
            "SELECT DISTINCT n.path, p.value_text FROM note_properties p JOIN notes n ON n.id = p.note_id "
            f"WHERE p.vault_id = ? AND p.value_text LIKE '%[[%'{named}"
        )
        args = [vault_id, *(x for like in likes for x in (like, "\\"))]
        return sorted({str(path) for path, value in conn.execute(sql, args) if _named(str(value), wanted)})

    return await db.run_read(run)
