"""How a vault's note names are read from the index's database for `NoteNames.get`: the same
loader for a call's lookups (`ToolContext.find_note`) and for the warm-up once the index is
ready (`query_warmup`). Touches nothing."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from service.graph.address import NoteName
    from service.storage.db import Database


def note_name_loader(db: Database, vault_id: str) -> Callable[[Sequence[str] | None], Awaitable[list[NoteName]]]:
    """What `NoteNames.get` reads a vault's note names with (the paths given, or every note for
    None): the same for a call and for the warm-up once the index is ready (`query_warmup`)."""
    from service.graph.address import NoteName
    from service.graph.queries import GraphQueries

    async def load(paths: Sequence[str] | None = None) -> list[NoteName]:
        rows = await GraphQueries(db).note_names(vault_id, paths)
        # Interned: the indexer's scan interns every file path it keeps (`service.indexer.scan`),
        # so the held names share those strings instead of keeping a copy of each path read
        # from SQLite (8.6 MB at 10^5 notes, settled server, tracemalloc). Each row is dropped
        # as its name is made, so the next name's strings reuse the copy's memory: freed only
        # after the whole list, the copies left ~8 MB of holes in the interpreter's arenas.
        rows.reverse()
        names: list[NoteName] = []
        while rows:
            path, aliases = rows.pop()
            names.append(NoteName(sys.intern(path), tuple(aliases)))
        return names

    return load
