"""search domain, flags: the `sensitive` flag of search_vault's and search_notes' items.

An item is sensitive as a search_semantic or search_text hit is (`service.tools.sensitive`
`note_excerpts`): one flag per note, whatever the mode and the excerpt shown. Its note holds a
secret (its snippet then shows it redacted under `redact` / `exclude`; under `flag` it shows it
as it is), or some of its content names a health or money topic: a term in its text or a
property value, a tag, its title or a heading (`[search] sensitive_terms`, `sensitive_tags`).
Reads index tables `notes`, `note_text` and `secret_verdicts`.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from service.tools.context import ToolContext
from service.tools.search_common import run
from service.tools.sensitive import guard_of, note_excerpts


@dataclass(frozen=True, slots=True)
class Shown:
    """What an item shows of its note: the excerpt (as found, before redaction) and the heading
    of the chunk it comes from, if any."""

    text: str = ""
    heading: str | None = None


async def sensitive(ctx: ToolContext, shown: dict[str, Shown]) -> dict[str, bool]:
    """Whether each item (by its note's path) is sensitive; a path the index no longer holds is not."""
    if not shown:
        return {}
    guard = guard_of(ctx)
    vid = ctx.vault.id
    paths = sorted(shown)

    def compute(conn: sqlite3.Connection) -> dict[str, bool]:
        notes: dict[str, tuple[int, list[str]]] = {}
        for i in range(0, len(paths), 500):
            part = paths[i : i + 500]
            marks = ",".join("?" * len(part))
            sql = f"SELECT id, path, tags FROM notes WHERE vault_id = ? AND path IN ({marks})"
            for nid, path, tags in conn.execute(sql, [vid, *part]):
                notes[str(path)] = (int(nid), list(json.loads(tags or "[]")))
        verdicts = note_excerpts(guard, conn, (nid for nid, _ in notes.values()))
        return {
            path: verdicts.sensitive(nid, shown[path].text, tags, shown[path].heading)
            for path, (nid, tags) in notes.items()
        }

    found = await run(ctx, compute)
    return {path: found.get(path, False) for path in paths}
