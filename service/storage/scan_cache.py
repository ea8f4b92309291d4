"""A connection's page cache kept small while it reads a whole table.

A read of every row of a table (the reconcile's comparison, the semantic counts and chunking's
walk, every note's names, the vectors no chunk uses) filled its connection's page cache to its
cap in one go: at a start, two readers at 4 MB and the writer at 2 MB with pages no query wanted
again, ~8 MB of a settled 10k-note server's ~100 MB (issue 39), kept for good (SQLite keeps a
connection's cache allocated once filled). `scan_cache` caps it at `SCAN_CACHE_KIB` for the scan
and sets the connection's own cap back after: the pages over the small cap are freed as the scan
goes, and the connection's next queries fill it as before. A scan reads each page once, so the
small cache costs it little (a comparison through an index that reaches table pages out of
order: ~15 → ~23 ms at 10k notes). Used by `Database.run_scan` and by scans on the writer: the
vectors no chunk uses, the embedding job's vector sync and canvas sweep (which filled the writer's
2 MB at every start, for good), the word index's merge.
After the scan its pages are freed too (`PRAGMA shrink_memory`: the ~200 KB left on each reader a
start's scans went through), before the cap is set back.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator

SCAN_CACHE_KIB = 200


@contextlib.contextmanager
def scan_cache(conn: sqlite3.Connection) -> Iterator[None]:
    """`conn`'s page cache capped at `SCAN_CACHE_KIB` while the block runs, then its cap set back."""
    kept = int(conn.execute("PRAGMA cache_size").fetchone()[0])
    conn.execute(f"PRAGMA cache_size=-{SCAN_CACHE_KIB}")
    try:
        yield
    finally:
        conn.execute("PRAGMA shrink_memory").fetchall()  # frees the pages no statement holds
        conn.execute(f"PRAGMA cache_size={kept}")
