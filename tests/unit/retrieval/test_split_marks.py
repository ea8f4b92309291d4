"""A snippet's highlight markers become spans exactly as the character-at-a-time walk made them
(the walk is kept here as the oracle): random marked text with tabs, line breaks, non-ASCII
characters, unbalanced and repeated markers, and FTS5's own snippets (the index's tokenizer)."""

from __future__ import annotations

import random

from service.retrieval import text
from service.storage.db import connect

OPEN, CLOSE = "\x02", "\x03"


def walked(raw: str) -> text.Snippet:
    """The previous implementation: one character at a time."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    start = 0
    length = 0
    for ch in raw:
        if ch == OPEN:
            start = length
        elif ch == CLOSE:
            spans.append((start, length))
        else:
            out.append(" " if ch in "\r\n\t" else ch)
            length += 1
    return text.Snippet("".join(out), spans)


def test_random_marked_text_splits_as_the_character_walk_did() -> None:
    rng = random.Random(11)
    alphabet = ["a", "b", " ", "é", "…", "日", "\t", "\r", "\n", "\U0001f600", OPEN, CLOSE]
    cases = ["", OPEN, CLOSE, OPEN + CLOSE, "\t\n", "no markers at all"]
    cases += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for _ in range(3000)]
    for raw in cases:
        assert text.split_marks(raw) == walked(raw), repr(raw)


def test_fts_snippets_split_as_the_character_walk_did() -> None:
    conn = connect(":memory:")
    tokenizer = "tokenize='porter unicode61 remove_diacritics 2'"
    conn.execute(f"CREATE VIRTUAL TABLE fts_words USING fts5(title, body, {tokenizer})")
    rng = random.Random(5)
    words = ["garden", "plan", "río", "naïve", "budget", "the", "and\tthen", "line\nbreak"]
    for nid in range(1, 81):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(5, 200)))
        conn.execute("INSERT INTO fts_words (rowid, title, body) VALUES (?, ?, ?)", (nid, f"t{nid}", body))
    sql = "SELECT snippet(fts_words, -1, ?, ?, '…', 16) FROM fts_words WHERE fts_words MATCH ?"
    raws = [r[0] for q in ("garden", "plan OR budget", '"naive budget"') for r in conn.execute(sql, [OPEN, CLOSE, q])]
    assert len(raws) > 40 and any(OPEN in r for r in raws)
    for raw in raws:
        assert text.split_marks(raw) == walked(raw), repr(raw)
