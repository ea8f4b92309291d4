"""What a search_text page asks of the index: on the real schema (every migration), the notes of a
relevance page are looked up by id, never by walking the vault's notes; and a query with a
relaxed form whose strict pass fills the first page asks the strict expression once. Pages are
checked against the general path (the strict page asked again at its offset) as the oracle."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable

import pytest

from service.retrieval import text
from service.retrieval.query import parse_query
from service.storage.db import connect
from service.storage.migrate import _apply_all, load_migrations

WORDS = ["plan", "project", "garden", "budget", "review", "alpha", "meeting", "design", "orchid"]


@pytest.fixture(scope="module")
def index() -> sqlite3.Connection:
    """A migrated index of 400 random notes, a tenth of them in another vault."""
    conn = connect(":memory:")
    _apply_all(conn, load_migrations())
    rng = random.Random(3)
    for nid in range(1, 401):
        vault = "other" if nid % 10 == 0 else "v"
        title = rng.choice(WORDS) if rng.random() < 0.3 else f"note {nid}"
        body = " ".join(rng.choice(WORDS + ["filler"] * 8) for _ in range(rng.randint(3, 40)))
        conn.execute(
            "INSERT INTO notes (id, vault_id, path, folder, name, title, mtime, size, etag, indexed_at)"
            " VALUES (?, ?, ?, '', ?, ?, ?, ?, 'e', 0)",
            (nid, vault, f"{rng.choice('abc')}/{nid:04d}.md", f"{nid:04d}", title, float(nid), len(body)),
        )
        conn.execute("INSERT INTO note_text (note_id, title, body) VALUES (?, ?, ?)", (nid, title, body))
    conn.commit()
    return conn


def statements(conn: sqlite3.Connection, run: Callable[[], object]) -> list[str]:
    """The statements `run` sends to SQLite."""
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    try:
        run()
    finally:
        conn.set_trace_callback(None)
    return seen


def test_a_relevance_page_reads_its_notes_by_id_not_by_walking_the_vault(index: sqlite3.Connection) -> None:
    match = parse_query("plan").match
    seen = statements(index, lambda: text.page(index, "v", match, [], "relevance", lambda _p: True, 0, 10))
    lookups = [s for s in seen if "FROM notes WHERE id IN" in s]
    assert lookups, seen
    for sql in lookups:
        plan = " | ".join(row[3] for row in index.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "INTEGER PRIMARY KEY" in plan, plan


def _readable(path: str) -> bool:
    return not path.startswith("c/")


def _general(conn: sqlite3.Connection, strict: str, relaxed: str | None, offset: int, limit: int) -> object:
    """two_pass_page as it was: after a full strict first page, the strict page asked again."""
    can_read = _readable
    if relaxed is not None:
        first, more = text.page(conn, "v", strict, [], "relevance", can_read, 0, limit)
        if not more and len(first) < limit:
            rest, _ = text.page(conn, "v", relaxed, [], "relevance", can_read, 0, offset + limit + 1)
            combined = text._extra(first, rest)
            answered = "any" if len(combined) > len(first) else "all"
            return combined[offset : offset + limit], len(combined) > offset + limit, answered
    hits, more = text.page(conn, "v", strict, [], "relevance", can_read, offset, limit)
    return hits, more, "all"


@pytest.mark.parametrize("query", ["plan project", "garden orchid", "alpha design meeting", "orchid", "plan -garden"])
def test_two_pass_pages_are_those_of_the_general_path_at_every_offset(index: sqlite3.Connection, query: str) -> None:
    parsed = parse_query(query)
    for limit in (1, 3, 10, 50):
        for offset in (0, limit, 3 * limit):
            got = text.two_pass_page(
                index,
                "v",
                parsed.match,
                parsed.relaxed,
                [],
                "relevance",
                lambda p: not p.startswith("c/"),
                offset,
                limit,
            )
            assert got == _general(index, parsed.match, parsed.relaxed, offset, limit), (query, limit, offset)


def test_a_full_strict_first_page_is_asked_for_once(index: sqlite3.Connection) -> None:
    parsed = parse_query("plan project")
    assert parsed.relaxed is not None
    seen = statements(
        index,
        lambda: text.two_pass_page(index, "v", parsed.match, parsed.relaxed, [], "relevance", lambda _p: True, 0, 5),
    )
    hits, more, answered = text.two_pass_page(
        index, "v", parsed.match, parsed.relaxed, [], "relevance", lambda _p: True, 0, 5
    )
    assert (len(hits), more, answered) == (5, True, "all")
    ranked = [s for s in seen if "bm25" in s]
    assert len(ranked) == 1, ranked


@pytest.fixture(scope="module")
def long_notes() -> sqlite3.Connection:
    """A migrated index where half the notes are long enough to be quoted from a window."""
    conn = connect(":memory:")
    _apply_all(conn, load_migrations())
    rng = random.Random(8)
    for nid in range(1, 41):
        words = rng.randint(3_000, 6_000) if nid % 2 else rng.randint(5, 60)
        body = " ".join(rng.choice(WORDS + ["filler", "other", "words"] * 30) for _ in range(words))
        conn.execute(
            "INSERT INTO notes (id, vault_id, path, folder, name, title, mtime, size, etag, indexed_at)"
            " VALUES (?, 'v', ?, '', ?, ?, ?, ?, 'e', 0)",
            (nid, f"n/{nid:03d}.md", f"{nid:03d}", f"note {nid}", float(nid), len(body)),
        )
        conn.execute("INSERT INTO note_text (note_id, title, body) VALUES (?, ?, ?)", (nid, f"note {nid}", body))
    conn.commit()
    return conn


@pytest.mark.parametrize("query", ["orchid", "plan project", "garden OR orchid", '"review alpha"', "design*"])
def test_a_page_s_long_notes_read_by_id_are_quoted_as_when_the_word_index_picks_them(
    long_notes: sqlite3.Connection, query: str
) -> None:
    parsed = parse_query(query)
    hits, _, answered = text.two_pass_page(
        long_notes, "v", parsed.match, parsed.relaxed, [], "relevance", lambda _p: True, 0, 20
    )
    words = parsed.relaxed if answered == "any" and parsed.relaxed else parsed.match
    ids = [h.note_id for h in hits]
    assert any(i % 2 for i in ids), "no long note on the page"
    assert text.snippets(long_notes, words, ids, matching=True) == text.snippets(long_notes, words, ids)
    seen = statements(long_notes, lambda: text.snippets(long_notes, words, ids, matching=True))
    assert not [s for s in seen if "note_text" in s and "MATCH" in s], seen
