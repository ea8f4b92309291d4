"""The format the index reads task fields in, kept in step with the vault's Tasks settings.

The Tasks plugin reads a task's fields only in the format its settings select (`taskFormat`: the
emoji by default, or 'dataview'; a vault without Tasks settings: both,
`service.obsidian.task_status.task_format`), and so does the index (`rows.prepare`). The format
the stored task rows were read in is kept in `meta` (`task_format:<vault id>`; absent: both, as
every index read before this was). Each reconcile (a start, a `reindex`, a resync) compares it with
the settings first: when they changed, every note holding a task whose reading can differ (a field
is `key::` or an emoji: a task with '::' or a character outside ASCII) loses its content hash, so
that reconcile reads it again (`reconcile.compare`, as migrations 0023-0036 have it done), and the
index's other writes read the new format from then on (`IndexerState.task_format`).
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from service.indexer.state import IndexerState
from service.obsidian.task_status import task_format

BOTH = "both"


def _key(vault_id: str) -> str:
    return f"task_format:{vault_id}"


async def follow_settings(ix: IndexerState) -> int:
    """Read the vault's task format into `ix.task_format`; when the stored task rows were read in
    another, mark their notes to be read again. Returns how many notes were marked."""
    current = await asyncio.to_thread(task_format, ix.vault.paths.root)
    ix.task_format = current
    row = await ix.db.fetchone("SELECT value FROM meta WHERE key = ?", (_key(ix.vault.id),))
    if (row[0] if row else BOTH) == (current or BOTH):
        return 0
    marked: int = await ix.db.run_write(partial(_read_again, vault_id=ix.vault.id, fmt=current or BOTH))
    return marked


def _read_again(conn: Any, *, vault_id: str, fmt: str) -> int:
    texts = conn.execute("SELECT note_id, text FROM tasks WHERE vault_id = ?", (vault_id,))
    notes = {note_id for note_id, text in texts if "::" in text or not text.isascii()}
    conn.executemany("UPDATE notes SET etag = '' WHERE id = ?", [(n,) for n in notes])
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (_key(vault_id), fmt),
    )
    return len(notes)
