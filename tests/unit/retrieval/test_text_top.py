"""A relevance page of search_text is ranked on the word index alone, then joined with its notes
(`service.retrieval.text._top_by_score`): the pages must be exactly those of the statement that
joins every match with its note and sorts them all (the oracle here), ties broken by path,
rows of another vault left out, at every page size and offset."""

from __future__ import annotations

import random
import sqlite3

import pytest

from service.retrieval import text
from service.retrieval.query import parse_query

SCHEMA = """
CREATE TABLE notes (id INTEGER PRIMARY KEY, vault_id TEXT NOT NULL, path TEXT NOT NULL, title TEXT NOT NULL,
    mtime REAL NOT NULL, size INTEGER NOT NULL DEFAULT 0);
CREATE TABLE note_text (note_id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL);
CREATE VIRTUAL TABLE fts_words USING fts5(title, body, content='note_text', content_rowid='note_id',
    tokenize='porter unicode61 remove_diacritics 2');
"""  # the index's tables as far as a text search reads them (migrations/0002_index.sql)
WORDS = ["plan", "project", "garden", "budget", "review", "alpha", "meeting", "design"]
QUERIES = ["project plan", "garden", "review budget", "alpha OR design", "meeting", "plan -garden", "nothing"]


def oracle(conn: sqlite3.Connection, vault_id: str, match: str, limit: int) -> list[text.TextHit]:
    rows = conn.execute(
        "SELECT n.id, n.path, n.title, n.mtime, -bm25(fts_words, 5.0, 1.0) AS score"
        " FROM fts_words JOIN notes n ON n.id = fts_words.rowid"
        " WHERE fts_words MATCH ? AND n.vault_id = ? ORDER BY score DESC, n.path LIMIT ?",
        (match, vault_id, limit),
    ).fetchall()
    return [text.TextHit(*r) for r in rows]


def build(notes: int, *, seed: int, copies: int, other_vault_share: float) -> sqlite3.Connection:
    """Random notes; every note has `copies` identical twins (equal scores: ties for the path to
    break), a share of them in another vault."""
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    nid = 0
    for i in range(notes):
        title = rng.choice(WORDS) if rng.random() < 0.3 else f"note {i}"
        body = " ".join(rng.choice(WORDS + ["filler"] * 6) for _ in range(rng.randint(3, 40)))
        for _ in range(copies):
            nid += 1
            vault = "other" if rng.random() < other_vault_share else "v"
            path = f"{rng.choice('abcdef')}/{nid:05d}.md"
            conn.execute("INSERT INTO notes VALUES (?, ?, ?, ?, ?, 0)", (nid, vault, path, title, float(nid)))
            conn.execute("INSERT INTO note_text VALUES (?, ?, ?)", (nid, title, body))
    conn.execute("INSERT INTO fts_words(fts_words) VALUES ('rebuild')")
    return conn


@pytest.mark.parametrize(
    ("copies", "other_vault_share"),
    [(1, 0.0), (3, 0.0), (2, 0.4), (1, 0.9)],
    ids=["distinct", "ties", "two-vaults", "mostly-another-vault"],
)
def test_a_relevance_page_ranked_on_the_word_index_is_the_joined_statement_s_page(
    copies: int, other_vault_share: float
) -> None:
    conn = build(300, seed=copies * 7 + int(other_vault_share * 10), copies=copies, other_vault_share=other_vault_share)
    for query in QUERIES:
        match = parse_query(query).match
        for limit in (1, 2, 5, 11, 21, 60, 400):
            assert text._candidates(conn, "v", match, [], "relevance", limit) == oracle(conn, "v", match, limit), (
                query,
                limit,
            )


def test_pages_cut_from_the_word_index_agree_with_the_oracle_at_every_offset() -> None:
    conn = build(200, seed=5, copies=2, other_vault_share=0.2)
    match = parse_query("project plan").match
    every = oracle(conn, "v", match, 10_000)
    for limit in (3, 10):
        for offset in range(0, len(every) + limit, limit):
            hits, more = text.page(conn, "v", match, [], "relevance", lambda _p: True, offset, limit)
            assert hits == every[offset : offset + limit]
            assert more == (len(every) > offset + limit)


def test_unreadable_notes_widen_the_word_index_page_without_reordering_it() -> None:
    conn = build(200, seed=9, copies=2, other_vault_share=0.0)
    match = parse_query("plan").match
    readable = [h for h in oracle(conn, "v", match, 10_000) if not h.path.startswith(("a/", "b/", "c/"))]
    hits, more = text.page(conn, "v", match, [], "relevance", lambda p: not p.startswith(("a/", "b/", "c/")), 0, 10)
    assert hits == readable[:10]
    assert more == (len(readable) > 10)


def test_the_word_index_decides_nothing_when_every_row_past_the_cut_ties() -> None:
    """Identical notes beyond the rows asked for: their order by path cannot be known from the
    rows returned, so the joined statement answers."""
    conn = build(1, seed=1, copies=50, other_vault_share=0.0)
    match = conn.execute("SELECT title FROM note_text LIMIT 1").fetchone()[0]
    match = parse_query(match.split()[0]).match
    assert text._top_by_score(conn, "v", match, 5) is None
    assert text._candidates(conn, "v", match, [], "relevance", 5) == oracle(conn, "v", match, 5)
