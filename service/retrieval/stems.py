"""The word index's terms of a searched string: what FTS5 looks up for it.

`terms("Plans.")` is `("plan",)`, as the index's tokenizer (porter over unicode61, diacritics
removed: windows.TOKENIZER) reads it for a query, a prefix included ("plans"* is looked up as
plan*). The query parser uses it to tell two spellings of one term from two terms
(service/retrieval/query.py): "plan", "plan." and "PLANS" are one unit of a query.

Asked of SQLite's own tokenizer (an in-memory FTS5 table and its `fts5vocab` table, one per
thread), not copied in Python, so it cannot disagree with the index; remembered by string
(`MEMO` strings, ~30 us a new one).
"""

from __future__ import annotations

import functools
import sqlite3
import threading

from service.storage.db import driver

TOKENIZER = "porter unicode61 remove_diacritics 2"  # as `fts_words` (migrations/0002_index.sql)
MEMO = 4096
_local = threading.local()


def _db() -> sqlite3.Connection:
    conn: sqlite3.Connection | None = getattr(_local, "conn", None)
    if conn is None:
        conn = driver().connect(":memory:", check_same_thread=True, isolation_level=None)
        conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{TOKENIZER}')")
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        _local.conn = conn
    return conn


@functools.lru_cache(maxsize=MEMO)
def terms(text: str) -> tuple[str, ...]:
    """The index's terms of `text`, in order (empty when it holds no letter or digit)."""
    conn = _db()
    conn.execute("BEGIN")
    try:
        conn.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (text,))
        return tuple(str(r[0]) for r in conn.execute("SELECT term FROM v ORDER BY offset"))
    finally:
        conn.execute("ROLLBACK")
