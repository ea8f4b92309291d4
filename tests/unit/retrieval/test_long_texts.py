"""Long notes' texts kept between searches (service/retrieval/long_texts.py): the snippets are the
ones the notes' text read afresh gives (cold and warm, strict and relaxed queries), a change
by the reading connection itself or a commit by another one is seen at the next search, and the
kept texts stay within their budget, least recently used dropped first."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from service.retrieval import text, windows
from service.retrieval.long_texts import LongTexts
from service.retrieval.query import parse_query
from tests.unit.retrieval.test_windows import SCHEMA, add, filler, marked

VOCAB = ["orbit", "launching", "gardens", "happy", "hoping", "relational", "tomato", "soil", "risk", "session"]


def read_afresh(conn: sqlite3.Connection, match: str, ids: Sequence[int]) -> dict[int, text.Snippet]:
    """`text.snippets` as it was before the texts were kept: every long note's text read from
    `note_text` (joined with the match) at each call, windows as `windows.WindowSnippets` cuts them."""
    marks = ",".join("?" * len(ids))
    out: dict[int, text.Snippet] = {}
    sql = (
        "SELECT t.note_id, t.title, CAST(t.body AS BLOB) FROM fts_words JOIN note_text t ON t.note_id = fts_words.rowid"
        f" JOIN notes n ON n.id = t.note_id WHERE fts_words MATCH ? AND fts_words.rowid IN ({marks}) AND n.size > ?"
    )
    for nid, title, body in conn.execute(sql, [match, *ids, windows.LONG_NOTE]):
        if len(body) > windows.LONG_NOTE and (raw := text._WINDOWS.snippet(match, title, body)) is not None:
            out[nid] = text.split_marks(raw)
    rest = [i for i in ids if i not in out]
    marks = ",".join("?" * len(rest))
    sql = (
        f"SELECT rowid, snippet(fts_words, -1, '{text._OPEN}', '{text._CLOSE}', '…', {text.SNIPPET_TOKENS})"
        f" FROM fts_words WHERE fts_words MATCH ? AND rowid IN ({marks})"
    )
    for rowid, raw in conn.execute(sql, [match, *rest]):
        out[rowid] = text.split_marks(raw or "")
    return out


def vault(conn: sqlite3.Connection, notes: int, seed: int) -> None:
    rng = random.Random(seed)
    for nid in range(1, notes + 1):
        parts = [filler(rng, rng.randint(20, 1200)) for _ in range(rng.randint(1, 8))]
        for _ in range(rng.randint(0, 6)):
            parts.insert(rng.randint(0, len(parts)), " ".join(rng.sample(VOCAB, rng.randint(1, 3))))
        add(conn, nid, f"N{nid} " + rng.choice(VOCAB), " ".join(parts))


def test_kept_texts_quote_as_the_texts_read_afresh() -> None:
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    vault(conn, 60, seed=11)
    long_notes = conn.execute("SELECT count(*) FROM notes WHERE size > ?", (windows.LONG_NOTE,)).fetchone()[0]
    assert 10 < long_notes < 60  # both kinds of notes on the pages
    queries = ["orbit", "launch gardens", "happiness OR hope", '"tomato soil"', '"risk session"', "relation*"]
    for query in queries * 2:  # the second time from the kept texts
        parsed = parse_query(query)
        for match in filter(None, [parsed.match, parsed.relaxed]):
            ids = [r[0] for r in conn.execute("SELECT rowid FROM fts_words WHERE fts_words MATCH ?", (match,))]
            assert ids
            expected = read_afresh(conn, match, ids)
            assert text.snippets(conn, match, ids) == expected, match
            assert text.snippets(conn, match, ids, matching=True) == expected, match


def test_a_change_by_the_reading_connection_is_seen() -> None:
    """data_version leaves out the connection's own writes: its change count covers them."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    rng = random.Random(12)
    add(conn, 1, "Log", filler(rng, 3000) + " the comet passed " + filler(rng, 200))
    match = parse_query("comet").match
    assert "passed" in text.snippets(conn, match, [1])[1].text
    body = filler(rng, 3000) + " the comet returned " + filler(rng, 200)
    old = "INSERT INTO fts_words(fts_words, rowid, title, body) SELECT 'delete', note_id, title, body FROM note_text"
    conn.execute(old)
    conn.execute("UPDATE note_text SET body = ? WHERE note_id = 1", (body,))
    conn.execute("INSERT INTO fts_words(rowid, title, body) VALUES (1, 'Log', ?)", (body,))
    got = text.snippets(conn, match, [1])[1]
    assert "returned" in got.text and marked(got) == ["comet"]


def test_a_commit_by_another_connection_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    writer = sqlite3.connect(path)
    writer.executescript(SCHEMA)
    rng = random.Random(13)
    add(writer, 1, "Log", filler(rng, 3000) + " the comet passed " + filler(rng, 200))
    writer.commit()
    reader = sqlite3.connect(path)
    match = parse_query("comet").match
    assert "passed" in text.snippets(reader, match, [1], matching=True)[1].text
    body = filler(rng, 3000) + " the comet returned " + filler(rng, 200)  # as OCR text: no new etag, same id
    writer.execute("UPDATE note_text SET body = ? WHERE note_id = 1", (body,))
    writer.commit()
    assert "returned" in text.snippets(reader, match, [1], matching=True)[1].text


def test_the_kept_texts_stay_within_their_budget() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE note_text (note_id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL)")
    conn.executemany("INSERT INTO note_text VALUES (?, ?, ?)", [(i, f"T{i}", "Ab" * 500) for i in range(1, 11)])
    kept = LongTexts(budget=4000)  # two notes of 1,000 bytes, each with its lowered copy
    assert kept.get(conn, [1, 2]) == {i: (f"T{i}", b"Ab" * 500, b"ab" * 500) for i in (1, 2)}
    kept.get(conn, [1])  # 1 used last: 2 goes first
    kept.get(conn, [3])
    assert {nid for _, nid in kept._texts} == {1, 3} and kept._size == 4000
    conn.execute("UPDATE note_text SET body = 'changed' WHERE note_id = 1")
    assert kept.get(conn, [1])[1][1] == b"changed"
    assert {nid for _, nid in kept._texts} == {1}


def test_two_databases_with_the_same_ids_keep_their_own_texts(tmp_path: Path) -> None:
    """The same note id in two indexes of one process (two cache folders), asked in turns."""
    readers = []
    for name, word in (("a", "comet"), ("b", "nebula")):
        path = tmp_path / f"{name}.db"
        writer = sqlite3.connect(path)
        writer.executescript(SCHEMA)
        rng = random.Random(14)
        add(writer, 1, "Log", filler(rng, 3000) + " comet nebula " + word + " here " + filler(rng, 200))
        writer.commit()
        readers.append(sqlite3.connect(path))
    match = parse_query("comet").match
    for _ in range(2):
        for reader, word in zip(readers, ("comet here", "nebula here"), strict=True):
            assert word in text.snippets(reader, match, [1], matching=True)[1].text
