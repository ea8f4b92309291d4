"""Snippets of a query with a prefix word (`"pro"*`) are cut from copies of the page's notes
(service/retrieval/text.py `_copied`), not by the word index's `snippet()`, which expands the
prefix to every word of the vault once for each row asked (6-26 s a page at 100k notes). The
index's own `snippet()` is the oracle: the same text and highlights for every short note, the
window snippet (`_windowed`) for a long one; rows that do not match are left out."""

from __future__ import annotations

import random
import sqlite3

import pytest

from service.retrieval import text, windows
from service.retrieval.query import parse_query
from tests.unit.retrieval.test_windows import SCHEMA, add, filler

WORDS = [
    "project", "progress", "promise", "protein", "pro", "garden", "gardening", "plan", "planet",
    "über", "Übersicht", "naïve", "café", "东京", "东西", "alpha", "beta", "a", "an", "and",
]  # fmt: skip
QUERIES = [
    "pro*", "pro* garden", "gard* plan*", '"project plan"* pro*', "pro* -garden", "pro* OR planet",
    "title:pro*", "ü*", "über*", "caf*", "东*", "a*", "pro* NOT protein", "(pro* OR gar*) AND plan",
]  # fmt: skip


def index_snippet(conn: sqlite3.Connection, match: str, nid: int) -> text.Snippet | None:
    row = conn.execute(
        "SELECT snippet(fts_words, -1, ?, ?, '…', ?) FROM fts_words WHERE fts_words MATCH ? AND rowid = ?",
        (text._OPEN, text._CLOSE, text.SNIPPET_TOKENS, match, nid),
    ).fetchone()
    return None if row is None else text.split_marks(row[0])


@pytest.fixture(scope="module")
def db() -> sqlite3.Connection:
    rng = random.Random(11)
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.executescript(SCHEMA)
    for nid in range(1, 121):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 60))]
        lines = [" ".join(words[i : i + 9]) for i in range(0, len(words), 9)]
        body = "\n".join(lines) if nid % 7 else filler(rng, 2500) + " " + " ".join(words) + " " + filler(rng, 900)
        add(conn, nid, " ".join(rng.sample(WORDS, 2)), body)
    return conn


@pytest.mark.parametrize("query", QUERIES)
def test_a_prefix_query_s_snippets_are_the_index_s(db: sqlite3.Connection, query: str) -> None:
    match = parse_query(query).match
    assert any(u.endswith("*") for u in windows.units(match)), match
    hits = [r[0] for r in db.execute("SELECT rowid FROM fts_words WHERE fts_words MATCH ? ORDER BY rowid", (match,))]
    assert hits, match
    long = {r[0] for r in db.execute("SELECT id FROM notes WHERE size > ?", (windows.LONG_NOTE,))}
    for matching, ids in ((True, hits), (False, list(range(1, 121)))):
        got = text.snippets(db, match, ids, matching=matching)
        assert sorted(got) == hits, (match, matching)
        for nid in hits:
            if nid in long:  # a long note: the window's snippet, as for a query without a prefix
                windowed = text._windowed(db, match, [nid], matching=True)
                want = text.split_marks(windowed[nid]) if nid in windowed else index_snippet(db, match, nid)
            else:
                want = index_snippet(db, match, nid)
            assert got[nid] == want, (match, nid, matching)


def test_a_prefix_query_s_snippets_never_ask_the_word_index(db: sqlite3.Connection) -> None:
    """The cause of the 6-26 s pages: the word index asked for the page's rows with the prefix."""
    match = parse_query("pro* plan").match
    hits = [r[0] for r in db.execute("SELECT rowid FROM fts_words WHERE fts_words MATCH ?", (match,))]
    tables: set[str] = set()

    def seen(action: int, table: str | None, *_: object) -> int:
        if action == sqlite3.SQLITE_READ and table:
            tables.add(table)
        return sqlite3.SQLITE_OK

    db.set_authorizer(seen)
    try:
        got = text.snippets(db, match, hits, matching=False)
    finally:
        db.set_authorizer(None)
    assert sorted(got) == sorted(hits)
    assert "note_text" in tables
    assert not {t for t in tables if t.startswith("fts_words")}, tables
