"""Snippets of long notes cut from a window (service/retrieval/windows.py) against FTS5's own
`snippet()` over the whole note: the same passage where the choice is clear, never fewer
distinct words highlighted, the whole-note snippet where no window is found, threads apart."""

from __future__ import annotations

import random
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from service.retrieval import text, windows
from service.retrieval.query import parse_query
from service.retrieval.unspaced import words_text

MIGRATION = Path(__file__).parents[3] / "migrations" / "0002_index.sql"
FILLER = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo"]


def filler(rng: random.Random, words: int) -> str:
    out = []
    for i in range(words):
        out.append(rng.choice(FILLER) + ("." if i % 11 == 10 else ""))
    return " ".join(out)


SCHEMA = f"""
CREATE TABLE notes (id INTEGER PRIMARY KEY, size INTEGER NOT NULL);
CREATE TABLE note_text (note_id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL,
    title_words TEXT, body_words TEXT);
CREATE VIEW note_words AS
    SELECT note_id, coalesce(title_words, title) AS title, coalesce(body_words, body) AS body FROM note_text;
CREATE VIRTUAL TABLE fts_words USING fts5(title, body, content='note_words', content_rowid='note_id',
    tokenize='{windows.TOKENIZER}');
"""  # the index's tables as far as snippets read them (migrations/0002_index.sql, 0044)


@pytest.fixture
def db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript(SCHEMA)
    return conn


def add(conn: sqlite3.Connection, nid: int, title: str, body: str) -> None:
    conn.execute("INSERT INTO notes(id, size) VALUES (?, ?)", (nid, len(body.encode()) + 40))
    words = (words_text(title), words_text(body))  # as the indexer stores them (service/indexer/rows.py)
    conn.execute("INSERT INTO note_text VALUES (?, ?, ?, ?, ?)", (nid, title, body, *words))
    conn.execute(
        "INSERT INTO fts_words(rowid, title, body) VALUES (?, ?, ?)", (nid, words[0] or title, words[1] or body)
    )


def whole(conn: sqlite3.Connection, match: str, nid: int) -> text.Snippet | None:
    row = conn.execute(
        "SELECT snippet(fts_words, -1, ?, ?, '…', ?) FROM fts_words WHERE fts_words MATCH ? AND rowid = ?",
        (text._OPEN, text._CLOSE, text.SNIPPET_TOKENS, match, nid),
    ).fetchone()
    return None if row is None else text.split_marks(row[0])


def marked(s: text.Snippet) -> list[str]:
    return [s.text[a:b].lower() for a, b in s.highlights]


def test_the_tokenizer_is_the_index_s() -> None:
    assert f"tokenize='{windows.TOKENIZER}'" in MIGRATION.read_text()


def test_one_place_in_a_long_note_gives_the_whole_note_s_snippet(db: sqlite3.Connection) -> None:
    rng = random.Random(1)
    cases = {
        1: ("Plain", filler(rng, 3000) + " the zeppelin landed. " + filler(rng, 3000)),
        2: ("Early", "Zeppelins first. " + filler(rng, 5000)),
        3: ("Late", filler(rng, 5000) + " and finally ZEPPELIN"),
        4: ("Cyrillic", filler(rng, 4000) + " Кириллица здесь. " + filler(rng, 500)),
    }
    for nid, (title, body) in cases.items():
        add(db, nid, title, body)
        assert len(body.encode()) > windows.LONG_NOTE
    for query, nid in [("zeppelin", 1), ("zeppelins", 2), ("zeppelin", 3), ("кириллица", 4)]:
        match = parse_query(query).match
        got = text.snippets(db, match, [nid])[nid]
        assert got == whole(db, match, nid), query
        assert marked(got)
    assert text._WINDOWS.snippet(parse_query("zeppelin").match, "Plain", cases[1][1].encode()) is not None


def test_a_window_that_cuts_the_note_is_marked_with_ellipses(db: sqlite3.Connection) -> None:
    rng = random.Random(8)
    body = filler(rng, 3000) + " " + "x" * 600 + "-zeppelin " + filler(rng, 40)  # no space for 600 bytes
    add(db, 6, "Blob", body)
    got = text.snippets(db, parse_query("zeppelin").match, [6])[6]
    assert got.text.startswith("…zeppelin") and got.text.endswith("…")
    assert marked(got) == ["zeppelin"]


def test_the_window_goes_where_the_words_meet(db: sqlite3.Connection) -> None:
    rng = random.Random(2)
    body = " ".join(
        [filler(rng, 800), "a lonely rocket.", filler(rng, 800), "a lonely garden.", filler(rng, 800)]
        + ["where the rocket lands in the garden today.", filler(rng, 1500)]
    )
    add(db, 7, "Note", body)
    match = parse_query("rocket garden").match
    got = text.snippets(db, match, [7])[7]
    assert {m[:6] for m in marked(got)} == {"rocket", "garden"}
    assert got.text.startswith("…") and got.text.endswith("…")
    full = whole(db, match, 7)
    assert full is not None and len(set(marked(full))) == len(set(marked(got)))


def test_never_fewer_distinct_words_than_the_whole_note_s_snippet(db: sqlite3.Connection) -> None:
    rng = random.Random(3)
    vocab = ["orbit", "launching", "gardens", "happy", "hoping", "relational", "tomato", "soil"]
    for nid in range(1, 41):
        parts = [filler(rng, rng.randint(200, 900)) for _ in range(6)]
        for _ in range(rng.randint(1, 6)):
            parts.insert(rng.randint(0, len(parts)), " ".join(rng.sample(vocab, rng.randint(1, 3))))
        add(db, nid, f"N{nid}", " ".join(parts) + " " + filler(rng, 2500))
    queries = ["orbit", "launch gardens", "happiness OR hope", '"tomato soil"', "relation*", "orbit -soil"]
    for query in queries:
        parsed = parse_query(query)
        for match in filter(None, [parsed.match, parsed.relaxed]):
            ids = [r[0] for r in db.execute("SELECT rowid FROM fts_words WHERE fts_words MATCH ?", (match,))]
            got = text.snippets(db, match, ids)
            assert set(got) == set(ids)
            for nid in ids:
                full = whole(db, match, nid)
                assert full is not None
                assert len(set(marked(got[nid]))) >= len(set(marked(full))), (match, nid)


def test_a_word_found_only_with_diacritics_falls_back_to_the_whole_note(db: sqlite3.Connection) -> None:
    rng = random.Random(4)
    body = filler(rng, 3000) + " a naïve plan. " + filler(rng, 500)
    add(db, 9, "Plan", body)
    match = parse_query("naive").match
    assert text._WINDOWS.snippet(match, "Plan", body.encode()) is None  # "nai" is not in "naïve"
    got = text.snippets(db, match, [9])[9]
    assert got == whole(db, match, 9) and marked(got) == ["naïve"]


def test_a_word_written_with_diacritics_is_found_as_written(db: sqlite3.Connection) -> None:
    rng = random.Random(9)
    body = " ".join([filler(rng, 1500), "a Café alone.", filler(rng, 1500), "Zürich has a café.", filler(rng, 900)])
    add(db, 10, "Trip", body)
    match = parse_query("zürich café").match
    assert text._WINDOWS.probes(match) == [("caf",), ("zuric", "züric")]
    got = text.snippets(db, match, [10])[10]
    assert sorted(marked(got)) == ["café", "zürich"]


def test_a_long_note_that_does_not_match_gets_no_snippet(db: sqlite3.Connection) -> None:
    rng = random.Random(5)
    add(db, 1, "Has", filler(rng, 3000) + " comet " + filler(rng, 100))
    add(db, 2, "Lacks", filler(rng, 3000) + " comets are elsewhere")
    add(db, 3, "Neither", filler(rng, 3000))
    match = parse_query("comet NOT elsewhere").match
    assert set(text.snippets(db, match, [1, 2, 3])) == {1}


def test_a_word_in_the_title_is_quoted_from_the_title(db: sqlite3.Connection) -> None:
    rng = random.Random(6)
    add(db, 5, "Quasar survey", filler(rng, 3000))
    match = parse_query("quasar").match
    got = text.snippets(db, match, [5])[5]
    assert got == whole(db, match, 5) and got.text.startswith("Quasar")


def test_threads_use_their_own_window_databases(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    rng = random.Random(7)
    words = ["nebula", "pulsar", "quasar", "meteor"]
    for nid, word in enumerate(words, start=1):
        add(conn, nid, f"N{nid}", filler(rng, 3000) + f" one {word} here " + filler(rng, 300))
    conn.commit()
    conn.close()

    def work(word: str) -> list[str]:
        local = sqlite3.connect(path)
        match = parse_query(word).match
        found = []
        for _ in range(25):
            got = text.snippets(local, match, [1, 2, 3, 4])
            assert len(got) == 1
            found += [m for s in got.values() for m in marked(s)]
        return found

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, words * 2))
    assert [set(r) for r in results] == [{w} for w in words * 2]


def test_cuts_in_a_row_quote_as_a_fresh_instance_does_and_leave_the_window_table_empty() -> None:
    """Each cut's row is rolled back, not deleted: a thread's many cuts give the snippets a
    fresh instance gives for each note alone, and its window table holds no row afterwards."""
    rng = random.Random(8)
    words = ["garden", "budget", "orchid", "review"]
    shared = windows.WindowSnippets(text._OPEN, text._CLOSE, text.SNIPPET_TOKENS)
    for i in range(40):
        body = f"{filler(rng, rng.randint(50, 3000))} {rng.choice(words)} {filler(rng, 40)} {rng.choice(words)}"
        expr = parse_query(" ".join(rng.sample(words, 2))).match
        alone = windows.WindowSnippets(text._OPEN, text._CLOSE, text.SNIPPET_TOKENS)
        assert shared.snippet(expr, f"note {i}", body.encode()) == alone.snippet(expr, f"note {i}", body.encode())
    assert shared._db().execute("SELECT count(*) FROM w").fetchone() == (0,)


def test_a_phrase_whose_words_meet_first_elsewhere_is_quoted_from_a_window(db: sqlite3.Connection) -> None:
    """The phrase's words near each other early ("risk" ... "session"), the phrase itself later,
    across punctuation ("Risks]] session"): the best place's window holds no match, so the
    phrase's own places are tried before the whole note's `snippet()`; the quote is the one
    the whole note gives."""
    rng = random.Random(10)
    parts = [filler(rng, 300), "a risk of the session.", filler(rng, 2500), "see [[Log#Risks]] session notes."]
    body = " ".join([*parts, filler(rng, 900)])
    add(db, 11, "Review", body)
    match = parse_query('"risks session"').match
    assert text._WINDOWS.phrases(match) == [("ris", "sessio")]
    assert windows.phrase_places(body.encode().lower(), ("ris", "sessio"), 4) == [body.index("Risks]]")]
    assert text._WINDOWS.snippet(match, "Review", body.encode()) is not None
    got = text.snippets(db, match, [11])[11]
    assert got == whole(db, match, 11)
    assert marked(got) == ["risks]] session"]
