"""An OR of words (hybrid search's text half) is ranked from the notes holding every word, and
"A NOT B" for two, with BM25's per-phrase bound deciding which rows are placed
(`service.retrieval.bm25_bounds`): the pages must be exactly those of the statement that scores
and sorts every match (the oracle), ties broken by path, at every page size."""

from __future__ import annotations

import random
import sqlite3

import pytest

from service.retrieval import bm25_bounds, text
from service.semantic.search import or_query
from tests.unit.retrieval.test_text_top import SCHEMA, oracle

# Skewed: the first words are in most notes, the last in few, so the AND holds a part of the OR.
WORDS = ["plan", "note", "project", "garden", "budget", "review", "alpha", "meeting", "design", "zebra"]
WEIGHTS = [30, 22, 14, 10, 7, 5, 4, 3, 2, 1]
QUERIES = [
    "plan note",
    "garden zebra",
    "project budget",
    "zebra plan",
    "review alpha meeting",
    "plan note project garden",
    "design nothingness",  # a word in no note
    "budget",  # one word: the OR statement
]


def indexed(rows: list[tuple[str, str, str]]) -> sqlite3.Connection:
    """An in-memory index of (path, title, body) rows, note ids from 1 in their order."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    for nid, (path, title, body) in enumerate(rows, 1):
        conn.execute("INSERT INTO notes VALUES (?, 'v', ?, ?, ?, 0)", (nid, path, title, float(nid)))
        conn.execute("INSERT INTO note_text VALUES (?, ?, ?)", (nid, title, body))
    conn.execute("INSERT INTO fts_words(fts_words) VALUES ('rebuild')")
    return conn


def build(notes: int, *, seed: int, copies: int) -> sqlite3.Connection:
    rng = random.Random(seed)
    rows: list[tuple[str, str, str]] = []
    for i in range(notes):
        title = " ".join(rng.choices(WORDS, WEIGHTS, k=rng.randint(1, 2))) if rng.random() < 0.4 else f"note {i}"
        body = " ".join(rng.choices([*WORDS, "filler"], [*WEIGHTS, 120], k=rng.randint(2, 120)))
        for _ in range(copies):  # identical twins: equal scores, the path breaks the tie
            rows.append((f"{rng.choice('abcdef')}/{len(rows) + 1:05d}.md", title, body))
    return indexed(rows)


@pytest.mark.parametrize("copies", [1, 3], ids=["distinct", "ties"])
def test_an_or_of_words_ranked_from_bounds_is_the_full_ranking_s_page(copies: int) -> None:
    conn = build(600, seed=copies, copies=copies)
    for query in QUERIES:
        match = or_query(query)
        assert match is not None
        for limit in (1, 2, 5, 11, 21, 101, 400):
            assert text._candidates(conn, "v", match, [], "relevance", limit) == oracle(conn, "v", match, limit), (
                query,
                limit,
            )


def test_the_bounds_decide_most_pages_of_two_words_by_the_and_and_some_by_a_not_b() -> None:
    """The cases above go through the bounded path, both of its levels (else they prove nothing)."""
    conn = build(600, seed=1, copies=1)
    levels: list[int] = []
    for query in QUERIES[:6]:
        match = or_query(query)
        assert match is not None
        for limit in (1, 5, 11, 21):
            asked: list[str] = []

            def best(expr: str, ask: int = limit * 2 + 8, asked: list[str] = asked) -> list[tuple[int, float]]:
                asked.append(expr)
                return conn.execute(text._BEST, (expr, ask)).fetchall()

            if bm25_bounds.top_rows(conn, match, limit * 2 + 8, limit, best) is not None:
                levels.append(len(asked))
    assert levels.count(1) >= 4  # the AND alone
    assert levels.count(2) >= 1  # the AND and "A NOT B"


def test_only_an_or_of_quoted_phrases_is_bounded() -> None:
    assert bm25_bounds.or_phrases('"plan" OR "a OR b"') == ['"plan"', '"a OR b"']
    for match in ('"plan"', '"plan" "note"', '("plan" OR "note")', '"plan" OR "note"*', '"a""b" OR "c"'):
        assert bm25_bounds.or_phrases(match) is None, match


def test_the_row_count_is_read_as_fts5_stores_it() -> None:
    conn = build(300, seed=2, copies=1)
    assert bm25_bounds._rows_indexed(conn) == 300
    assert bm25_bounds._varint(bytes([0x86, 0x8D, 0x20])) == 100_000
    assert bm25_bounds._varint(bytes([0xFF] * 8 + [0x01])) == (1 << 64) - 255


def tied(groups: list[tuple[int, str, str]]) -> sqlite3.Connection:
    """`count` identical notes per (count, title, body); later notes get earlier paths, so rows
    the index returns in rowid order are not the first by path."""
    rows = [(title, body) for count, title, body in groups for _ in range(count)]
    return indexed([(f"n/{10_000 - nid:05d}.md", title, body) for nid, (title, body) in enumerate(rows, 1)])


@pytest.mark.parametrize(
    "groups",
    [
        # 60 equal notes holding both words: the AND returns some of them, ties past its last row.
        [
            (60, "zebra plan", "zebra plan zebra plan"),
            (300, "other", "plan" + " filler" * 100),
            (200, "other", "zebra" + " filler" * 100),
            (1000, "other", "filler " * 50),
        ],
        # Equal notes holding only the rarer word outscore the notes holding both: "A NOT B" decides.
        [(60, "zebra", "zebra"), (5, "other", "zebra filler filler filler plan"), (400, "plan", "plan")],
        # Long notes hold the rarer word, short ones only the common word and outscore them.
        [
            (3, "other", "zebra plan" + " filler" * 300),
            (10, "other", "zebra" + " filler" * 300),
            (200, "plan", "plan"),
            (400, "other", "filler " * 50),
        ],
    ],
    ids=["ties-in-the-and", "ties-in-a-not-b", "b-alone-outscores-a-alone"],
)
def test_ties_past_the_rows_asked_for_are_placed_by_path(groups: list[tuple[int, str, str]]) -> None:
    conn = tied(groups)
    match = or_query("zebra plan")
    assert match is not None
    for limit in (1, 3, 10, 30):
        assert text._candidates(conn, "v", match, [], "relevance", limit) == oracle(conn, "v", match, limit), limit
