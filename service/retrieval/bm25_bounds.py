"""The best BM25 rows of an OR of phrases without scoring every match (hybrid search's text half).

FTS5's `bm25()` sums one term per phrase of the expression,
`idf(p) * f * (k1 + 1) / (f + k1 * (1 - b + b * |D| / avgdl))` (f: the phrase's weighted count
in the note), and each term is below `idf(p) * (k1 + 1)` whatever the note and the column
weights. So a note that lacks phrase p scores less than the sum of the other phrases' bounds.
At 100k notes an OR of two words matches ~18,000 notes, and scoring them all took ~11 ms of
CPU; the notes holding both words are a few thousand, and they fill the top rows. For an OR of
two phrases A and B (A: the larger bound):

1. "A AND B": its rows scoring above A's bound and, when it returned every row asked for, above
   its last row, are the OR's top rows, exactly.
2. Else "A NOT B" is added: a note holding only B scores below B's bound.
3. Else None, and the caller runs the OR statement.

Three words or more are left to the OR statement: their AND rarely clears the bound of a note
lacking one word (the sum of the other bounds), and trying cost more than it saved (at 100k
notes, three random words of the workload: 25 -> 32 ms). A row's score is the OR statement's to
the bit: FTS5 adds the phrases' terms in the expression's order, and a phrase absent from the
note adds exactly 0.0. idf uses FTS5's own row count (the index's averages record) and phrase
counts, as `bm25()` does.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Callable

Ranked = Callable[[str], list[tuple[int, float]]]  # expression -> (rowid, score) best first, `ask` rows at most

K1 = 1.2  # FTS5's bm25 constant (fts5_aux.c); b does not enter the bound
_MARGIN = 1 + 1e-9  # the bound computed here against FTS5's in C: a hair above, never below
_OR_OF_PHRASES = re.compile(r'"[^"]*"(?: OR "[^"]*")+')
_PHRASE = re.compile(r'"[^"]*"')


def or_phrases(match: str) -> list[str] | None:
    """The phrases of an expression that is only quoted phrases joined by OR (the form
    `semantic.search.or_query` emits), else None."""
    return _PHRASE.findall(match) if _OR_OF_PHRASES.fullmatch(match) else None


def top_rows(
    conn: sqlite3.Connection, match: str, ask: int, need: int, ranked: Ranked
) -> list[tuple[int, float]] | None:
    """Rows (rowid, score) of `match`, at least `need`, in any order, holding every match that
    scores as high as the lowest of them (ties included); None when the bounds cannot decide
    so, and the caller ranks every match."""
    phrases = or_phrases(match)
    if phrases is None or len(phrases) != 2:
        return None  # three words or more: the AND rarely beats the bound (see the module doc)
    n_rows = _rows_indexed(conn)
    if n_rows is None:
        return None
    bound: dict[str, float] = {}
    for p in phrases:
        hits = int(conn.execute("SELECT count(*) FROM fts_words WHERE fts_words MATCH ?", (p,)).fetchone()[0])
        if not hits:
            return None  # one word in no note: the OR is that of one word
        bound[p] = _idf(n_rows, hits) * (K1 + 1) * _MARGIN
    a, b = sorted(phrases, key=lambda p: -bound[p])
    both = ranked(" AND ".join(phrases))
    floor = _last(both, ask)
    placed = [r for r in both if r[1] > max(floor, bound[a])]  # a note lacking a word scores below a's bound
    if len(placed) >= need:
        return placed
    only_a = ranked(f"{a} NOT {b}")
    cut = max(floor, _last(only_a, ask), bound[b])
    placed = [r for r in both + only_a if r[1] > cut]
    return placed if len(placed) >= need else None


def _last(rows: list[tuple[int, float]], ask: int) -> float:
    """The score at or below which rows may be missing: the last row's when `ask` were returned."""
    return rows[-1][1] if len(rows) >= ask else -math.inf


def _idf(n_rows: int, hits: int) -> float:
    idf = math.log((n_rows - hits + 0.5) / (hits + 0.5))
    return idf if idf > 0.0 else 1e-6  # FTS5's floor for a phrase in more than half the rows


def _rows_indexed(conn: sqlite3.Connection) -> int | None:
    """FTS5's row count, the first varint of the averages record (`fts_words_data` id 1), as
    `bm25()` reads it; None if absent."""
    row = conn.execute("SELECT block FROM fts_words_data WHERE id = 1").fetchone()
    return _varint(bytes(row[0])) if row is not None and row[0] else None


def _varint(data: bytes) -> int | None:
    """SQLite's varint: 7 bits a byte, high bit set while more follow; a ninth byte gives 8."""
    value = 0
    for i, byte in enumerate(data[:9]):
        if i == 8:
            return (value << 8) | byte
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value
    return None
