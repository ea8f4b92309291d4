"""`specificity`: how rare a query's words are in the index, the input of search_hybrid's text
weight (service/retrieval/hybrid.py)."""

import math
import sqlite3

import pytest

from service.semantic.search import specificity
from service.semantic.vectors import ScanCache


def _index(bodies: list[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE VIRTUAL TABLE fts_words USING fts5(title, body, tokenize='porter unicode61')")
    for n, body in enumerate(bodies, 1):
        conn.execute("INSERT INTO notes (id) VALUES (?)", (n,))
        conn.execute("INSERT INTO fts_words (rowid, title, body) VALUES (?, '', ?)", (n, body))
    return conn


def test_rare_words_are_specific_and_common_ones_are_not() -> None:
    conn = _index(["a note about links"] * 9 + ["a note about zebras"])
    memo: dict[str, int] = {}
    rare = specificity(conn, "zebras", memo)
    common = specificity(conn, "how do I see which notes link here", memo)
    assert rare is not None and common is not None
    assert rare > 0.6 > common
    # the value is BM25's idf over its largest possible value
    assert rare == pytest.approx(math.log((10 - 1 + 0.5) / 1.5 + 1) / math.log(11))
    assert memo["zebras"] == 1 and memo["notes"] == 10  # porter: "notes" finds "note"


def test_a_word_in_no_note_counts_as_fully_specific_and_the_memo_is_used() -> None:
    conn = _index(["alpha", "beta"])
    memo = {"alpha": 2}  # a remembered count is not asked again
    assert specificity(conn, "gamma", memo) == pytest.approx(1.0)
    assert specificity(conn, "alpha", memo) == pytest.approx(math.log(0.5 / 2.5 + 1) / math.log(3))


def test_no_words_or_no_notes_gives_none() -> None:
    assert specificity(_index(["x"]), "?!", {}) is None
    assert specificity(_index([]), "anything", {}) is None


def test_the_remembered_counts_are_dropped_when_the_vectors_change() -> None:
    cache = ScanCache()
    specificity(_index(["alpha"]), "alpha", cache.doc_freq)
    assert cache.doc_freq
    cache.bump("v")
    assert cache.doc_freq == {}


def test_counts_a_search_made_before_a_change_cannot_refill_the_memo_after_it() -> None:
    """A search's reader thread takes the memo, then counts from the index as it was; the notes
    change (`bump`) before it writes: what it writes must not be read by later searches."""
    cache = ScanCache()
    taken = cache.doc_freq  # the reader's argument, taken before the change
    cache.bump("v")
    specificity(_index(["alpha"]), "alpha", taken)  # counts of the old notes, written after the bump
    assert taken and cache.doc_freq == {}
    cache.reload("v")
    assert cache.doc_freq == {}
