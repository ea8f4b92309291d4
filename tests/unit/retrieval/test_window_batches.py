"""The long notes of a page are cut together (`WindowSnippets.snippets`: one insert and one
`snippet()` statement for all their windows); each note's quote must be the one the per-note
algorithm gave (the oracle here, as the module had it: the whole-note scan of
`test_window_places.old_best_place`, then a window of its own cut alone, then the phrase's own
places), for notes with one word, two words far apart or near, a phrase whose words meet first
elsewhere, a word in the title only, a word only in another spelling and no match at all."""

from __future__ import annotations

import random
import sqlite3

from service.retrieval import text, windows
from service.retrieval.query import parse_query
from tests.unit.retrieval.test_window_places import old_best_place

N = text.SNIPPET_TOKENS
CUT = f"SELECT snippet(w, -1, ?, ?, ?, {N}), snippet(w, 0, ?, ?, ?, {N}) FROM w WHERE w MATCH ?"


def old_cut(conn: sqlite3.Connection, expr: str, title: str, body: bytes, span: tuple[int, int]) -> str | None:
    start, end = span
    conn.execute("DELETE FROM w")
    conn.execute("INSERT INTO w(rowid, title, body) VALUES (1, ?, ?)", (title, body[start:end].decode(errors="ignore")))
    marks = (text._OPEN, text._CLOSE, windows.ELLIPSIS)
    row = conn.execute(CUT, (*marks, *marks, " OR ".join(windows.units(expr)))).fetchone()
    if row is None:
        return None
    quote, in_title = str(row[0] or ""), str(row[1] or "")
    if quote == in_title:
        return quote
    if start > 0 and not quote.startswith(windows.ELLIPSIS):
        quote = windows.ELLIPSIS + quote
    if end < len(body) and not quote.endswith(windows.ELLIPSIS):
        quote += windows.ELLIPSIS
    return quote


def old_snippet(conn: sqlite3.Connection, expr: str, title: str, body: bytes) -> str | None:
    probes = text._WINDOWS.probes(expr)
    best = old_best_place(body, probes) if probes else None
    if best is None:
        return None
    tried = windows.window(body, best)
    if (raw := old_cut(conn, expr, title, body, tried)) is not None:
        return raw
    retries = windows.RETRIES
    for phrase in text._WINDOWS.phrases(expr):
        for at in windows.phrase_places(body.lower(), phrase, retries):
            span = windows.window(body, at)
            if span == tried:
                continue
            retries -= 1
            if (raw := old_cut(conn, expr, title, body, span)) is not None:
                return raw
            tried = span
        if retries <= 0:
            break
    return None


FILLER = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
WORDS = ["garden", "Gardens", "budget", "BUDGET", "orchid", "naïve", "risk", "session", "[[Log#Risks]] session"]
QUERIES = ["garden", "garden budget", "budget orchid", '"risks session"', "orchid naive", "garden -budget", "zebra"]


def note(rng: random.Random) -> str:
    out = []
    for i in range(rng.randint(300, 6000)):
        out.append(rng.choice(WORDS) if rng.random() < rng.choice([0.0005, 0.003, 0.03]) else rng.choice(FILLER))
        if i % 17 == 16:
            out[-1] += ".\n"
    return " ".join(out)


def test_a_page_s_long_notes_cut_together_quote_as_each_note_cut_alone_did() -> None:
    rng = random.Random(31)
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE w USING fts5(title, body, tokenize='{windows.TOKENIZER}')")
    quoted = 0
    for page in range(40):
        expr = parse_query(rng.choice(QUERIES)).match
        notes = [(k, rng.choice(["Plan", "Garden budget", "Orchid"]), note(rng).encode()) for k in range(12)]
        got = text._WINDOWS.snippets(expr, notes)
        expected = {k: raw for k, title, body in notes if (raw := old_snippet(conn, expr, title, body)) is not None}
        assert got == expected, (page, expr)
        quoted += len(got)
    assert quoted > 200  # most notes hold a word of their query: the comparison is not of empty pages
    assert text._WINDOWS._db().execute("SELECT count(*) FROM w").fetchone() == (0,)
