"""The full-text word index kept in few segments: `fts_words` merged after the index is ready.

FTS5 stores each transaction's rows as a segment of their own and merges four segments of one
level into one of the next (its `automerge`), so an index that grew in batches holds a dozen
segments or more: 17 in the 10k-note benchmark index after its build and the writes since. A
query opens every segment for each of its terms, and `snippet()`'s statement matches once more,
so each segment is paid for twice a search. Merged into one, a search's page and snippets took
~15-40 % less in process on that index (docs/benchmarks.md, 2026-11-29).

`compact_words` merges every segment into one (FTS5's 'optimize') when there are more than
`MAX_SEGMENTS`: the indexer runs it in the background after each reconcile, once calls pause,
and again when the maintenance sweep (`service.obs.maintenance`, hourly) asks, after the writes
since (the merge holds the writer: ~0.2 s at 10k notes). What the index holds does not change, only
how it is stored: the same rows, terms, positions and statistics, so rankings and snippets
stay the same.
"""

from __future__ import annotations

from typing import Any

from service.storage.scan_cache import scan_cache

MAX_SEGMENTS = 3  # a few small segments of recent writes beside the merged one cost little


def word_segments(conn: Any) -> int:
    """Segments of `fts_words` (every segment has at least one row in the table of its pages)."""
    return int(conn.execute("SELECT count(DISTINCT segid) FROM fts_words_idx").fetchone()[0])


def compact_words(conn: Any) -> bool:
    """Merge the word index into one segment when it has more than `MAX_SEGMENTS`; whether it did.
    The merge reads the whole index once, with the connection's page cache kept small (`scan_cache`):
    it filled the writer's 2 MB, kept for good (issue 39); the 10k-note index's merge took no longer
    (~0.6-0.9 s either way)."""
    with scan_cache(conn):
        if word_segments(conn) <= MAX_SEGMENTS:
            return False
        conn.execute("INSERT INTO fts_words(fts_words) VALUES ('optimize')")
    return True
