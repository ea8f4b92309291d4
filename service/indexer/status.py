"""Index counts for status reports (`index_status`, `list_vaults`, metrics).

Guarantee: the counts are cached per indexer generation; every index write bumps it, so polling
index_status costs one query per change instead of ~20 ms per call on 10k notes. While a bulk
load runs (`moving`), every batch is a change: the counts are then read at most once per
`MOVING_MAX_AGE_S` (each read scans five tables, and its pages filled a reader's cache, ~10 MB of
a cold build's peak RSS), and reused for at least `COST_REUSE` times what the last read took:
a cold load drops the tables' query indexes, so near the end of 100k notes a read scans every
row (~0.5-1.5 s of a core), and a client polling each second took ~20 % of the server's CPU of
the load. Once the load ends they are exact again.
"""

from __future__ import annotations

import time

from service.obsidian.canvas import not_canvas
from service.storage.db import Database

_COUNTS = (
    f"SELECT (SELECT COUNT(*) FROM notes WHERE vault_id = ?1 AND {not_canvas()}),"
    " (SELECT COUNT(*) FROM links WHERE vault_id = ?1),"
    " (SELECT COUNT(*) FROM links WHERE vault_id = ?1 AND target_path IS NULL),"
    " (SELECT COUNT(DISTINCT tag_lower) FROM note_tags WHERE vault_id = ?1),"
    " (SELECT COUNT(*) FROM tasks WHERE vault_id = ?1),"
    " (SELECT COUNT(*) FROM tasks WHERE vault_id = ?1 AND status = ' '),"
    " (SELECT COUNT(*) FROM headings h JOIN notes n ON n.id = h.note_id WHERE n.vault_id = ?1)"
)
MOVING_MAX_AGE_S = 1.0
COST_REUSE = 20  # while moving: a read costs at most ~5 % of a core, however often clients ask


class Counts:
    """Row counts of one vault's index, remembered for the generation they were read at."""

    def __init__(self, db: Database, vault_id: str) -> None:
        self.db = db
        self.vault_id = vault_id
        self._cached: tuple[int, dict[str, int]] | None = None
        self._read_at = 0.0
        self._reuse_s = MOVING_MAX_AGE_S  # how long counts read while moving are reused

    async def get(self, generation: int, *, moving: bool = False) -> dict[str, int]:
        """The counts at `generation` (read by the caller before this query: a later write
        always invalidates), or, while a bulk load is `moving`, as old as the last read's cost allows
        (`MOVING_MAX_AGE_S`, or `COST_REUSE` times the last read's time when that is longer)."""
        cached = self._cached
        if cached is not None and (
            cached[0] == generation or (moving and time.monotonic() - self._read_at < self._reuse_s)
        ):
            return dict(cached[1])
        started = time.monotonic()
        row = await self.db.fetchone(_COUNTS, (self.vault_id,))
        counts = {
            "notes": int(row[0]),
            "links": int(row[1]),
            "unresolved_links": int(row[2]),
            "tags": int(row[3]),
            "tasks": int(row[4]),
            "open_tasks": int(row[5]),
            "headings": int(row[6]),
        }
        self._cached = (generation, dict(counts))
        self._read_at = time.monotonic()
        self._reuse_s = max(MOVING_MAX_AGE_S, COST_REUSE * (self._read_at - started))
        return counts
