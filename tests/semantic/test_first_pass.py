"""The exact scan's first pass over compact codes (service/semantic/codes.py) returns what the scan
of every vector returns: on random vectors, on a constructed case with tied similarities (ties by
chunk id), as k grows past what the candidates support, and with codes made row by row."""

from __future__ import annotations

import gc
import sqlite3
import weakref
from typing import Any

import numpy as np
import pytest

from service.semantic import codes, vectors
from service.storage.migrate import load_migrations

DIM = 384
Array = np.ndarray[Any, Any]


def store(matrix: Array, ids: list[int] | None = None) -> sqlite3.Connection:
    """An index holding one vector per chunk (the tables `ScanCache.matrix` reads)."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, vault_id TEXT, hash TEXT)")
    conn.execute("CREATE TABLE embeddings (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))")
    conn.execute("CREATE INDEX chunks_by_vault_hash ON chunks(vault_id, hash)")
    conn.execute("CREATE INDEX embeddings_keys ON embeddings(model, hash)")
    (log,) = [m for m in load_migrations() if m.name == "chunk_changes"]  # the change log's triggers
    conn.executescript(log.sql)
    for n, row in enumerate(matrix):
        chunk_id = ids[n] if ids else n + 1
        conn.execute("INSERT INTO chunks VALUES (?, 'v', ?)", (chunk_id, f"h{n}"))
        conn.execute("INSERT INTO embeddings VALUES ('m', ?, ?)", (f"h{n}", row.astype(np.float32).tobytes()))
    return conn


def unit(rows: Array) -> Array:
    out: Array = (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)
    return out


def embedded_like(rng: np.random.Generator, n: int) -> Array:
    """Vectors shaped like a text model's: a shared offset, most variance on a few dozen axes."""
    topics = rng.standard_normal((40, DIM))
    offset = rng.standard_normal(DIM)
    return unit(offset + rng.standard_normal((n, 40)) @ topics + 0.5 * rng.standard_normal((n, DIM)))


def both(
    conn: sqlite3.Connection, query: Array, cache: vectors.ScanCache | None = None
) -> tuple[Any, Any, vectors.ScanCache]:
    """(first pass ranking, plain scan ranking, the first pass's cache)."""
    cache = cache or vectors.ScanCache()
    fast = vectors.scan_ranking(conn, cache, "v", "m", query, first_pass_rows=0)
    plain = vectors.scan_ranking(conn, cache, "v", "m", query, first_pass_rows=10**9)
    return fast, plain, cache


@pytest.fixture
def small_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the first pass answer with candidates up to half the rows (by default 1/8), so that
    matrices of a few thousand rows exercise it."""
    monkeypatch.setattr(vectors, "CANDIDATE_SHARE", 2)


@pytest.mark.usefixtures("small_share")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_first_pass_returns_the_exact_top_k_on_random_vectors(seed: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = embedded_like(rng, 8000)
    conn = store(matrix)
    cache = vectors.ScanCache()
    for query in [*unit(rng.standard_normal((3, DIM))), matrix[17], unit(matrix[5] + matrix[900])]:
        fast, plain, _ = both(conn, query, cache)
        for k in (1, 10, 64, 250, 1000, 9000):  # 1000 and 9000: more than the candidates support
            assert fast(k) == plain(k)
        assert cache.matrix(conn, "v", "m").codes is not None  # the first pass did answer


@pytest.mark.usefixtures("small_share")
def test_ties_keep_chunk_id_order_and_deeper_asks_agree() -> None:
    """Five chunks with the same vector (the query's own) come first, in chunk id order, whatever
    order their rows are in; asking for more afterwards repeats the same head."""
    rng = np.random.default_rng(11)
    matrix = embedded_like(rng, 6000)
    twins = [4321, 12, 2999, 5000, 77]
    for row in twins:
        matrix[row] = matrix[twins[0]]
    ids = list(rng.permutation(np.arange(10, 6010)))
    conn = store(matrix, [int(i) for i in ids])
    fast, plain, cache = both(conn, matrix[twins[0]])
    head = sorted(int(ids[r]) for r in twins)
    for k in (3, 5, 10, 300, 2000):
        got = fast(k)
        assert got == plain(k)
        assert [i for i, _ in got[:5]] == head[: min(k, 5)]
    assert cache.matrix(conn, "v", "m").codes is not None


def test_small_matrices_and_small_vectors_keep_the_plain_scan() -> None:
    """Below the row threshold, when the candidates would be over 1/8 of the rows (2,000 of
    8,000), and for vectors of fewer than 2 x CODE_DIM dimensions, every similarity is computed."""
    rng = np.random.default_rng(5)
    for rows, dim, first_pass_rows in ((8000, DIM, 20_000), (8000, DIM, 0), (8000, 64, 0)):
        conn = store(unit(rng.standard_normal((rows, dim))))
        cache = vectors.ScanCache()
        found = vectors.scan_ranking(
            conn, cache, "v", "m", unit(rng.standard_normal(dim)), first_pass_rows=first_pass_rows
        )
        assert len(found(10)) == 10
        assert cache.matrix(conn, "v", "m").codes is None


def test_codes_made_row_by_row_equal_the_codes_of_the_matrix() -> None:
    """What an update of single rows relies on: a row's code depends on the row and the basis only."""
    rng = np.random.default_rng(9)
    matrix = embedded_like(rng, 3000)
    made = codes.build(matrix)
    assert made.rows.shape == (3000, codes.CODE_DIM) and made.rows.flags.c_contiguous
    for row in (0, 1234, 2999):
        np.testing.assert_allclose(
            codes.codes_of(matrix[row : row + 1], made.basis), made.rows[row : row + 1], atol=1e-5
        )
    axes = made.basis.axes
    np.testing.assert_allclose(axes.T @ axes, np.eye(codes.CODE_DIM), atol=1e-4)  # orthonormal


def test_candidates_are_the_best_estimates_in_row_order() -> None:
    estimated = np.array([0.1, 0.9, 0.5, 0.7, 0.2], dtype=np.float32)
    assert codes.candidates(estimated, 2).tolist() == [1, 3]
    assert codes.candidates(estimated, 9).tolist() == [0, 1, 2, 3, 4]


def test_codes_follow_the_matrix_row_by_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """After an edit the matrix appends its new rows' codes with the basis it has (no refit, no
    re-coding of the others), also through a compaction; the answers stay the plain scan's."""
    monkeypatch.setattr(vectors, "CANDIDATE_SHARE", 2)
    rng = np.random.default_rng(11)
    pool = iter(embedded_like(rng, 6000))  # one distribution for the rows, the edits and the query
    conn = store(np.array([next(pool) for _ in range(4500)]))
    cache = vectors.ScanCache()
    query = next(pool)
    both(conn, query, cache)[0](20)
    first = cache.matrix(conn, "v", "m")
    assert first.codes is not None
    for round_ in range(3):  # the last round retires over a quarter of the rows: a compaction
        count = 5 if round_ < 2 else 1400
        for n in range(count):
            digest = f"edit{round_}-{n}"
            conn.execute("INSERT OR REPLACE INTO chunks VALUES (?, 'v', ?)", (n * 3 + 1, digest))
            vector = next(pool)
            conn.execute("INSERT INTO embeddings VALUES ('m', ?, ?)", (digest, vector.tobytes()))
        updated = cache.matrix(conn, "v", "m")
        assert updated.codes is not None and updated.codes.basis is first.codes.basis
        assert len(updated.codes.rows) == len(updated.ids)
        live = np.flatnonzero(updated.ids >= 0)
        np.testing.assert_allclose(
            updated.codes.rows[live], codes.codes_of(updated.vectors[live], first.codes.basis), atol=1e-5
        )
        fast, plain, _ = both(conn, query, cache)
        for k in (1, 20, 200):
            assert fast(k) == plain(k)
    assert not len(updated.dead)  # compacted


@pytest.mark.usefixtures("small_share")
def test_a_ranking_is_kept_with_its_snapshot_and_each_k_answers_as_when_asked_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same query over the same rows gets the same ranking object back (a later tool asking
    the question again does not scan again); its answer for a k is the one a fresh ranking gives,
    whatever was asked of it before; a changed chunk makes a new snapshot that ranks anew."""
    rng = np.random.default_rng(13)
    matrix = embedded_like(rng, 6000)
    conn = store(matrix)
    cache = vectors.ScanCache()
    query = unit(rng.standard_normal(DIM))
    # Estimates that lead the first pass astray, so that its answers differ from the plain scan's.
    real = codes.estimates
    monkeypatch.setattr(codes, "estimates", lambda c, q: -real(c, q))
    first = vectors.scan_ranking(conn, cache, "v", "m", query, first_pass_rows=0)
    deep = first(2500)  # more than the first pass supports: every similarity is computed
    again = vectors.scan_ranking(conn, cache, "v", "m", query, first_pass_rows=0)
    assert again is first
    fresh = vectors.scan_ranking(conn, vectors.ScanCache(), "v", "m", query, first_pass_rows=0)
    plain = vectors.scan_ranking(conn, cache, "v", "m", query, first_pass_rows=10**9)
    assert again(64) == fresh(64) != plain(64)
    assert again(2500) == deep == plain(2500)
    handed = again(64)
    handed.clear()  # a caller's list is its own
    assert again(64) == fresh(64)
    old = weakref.ref(cache.matrix(conn, "v", "m"))
    del first, again, plain, handed
    conn.execute("INSERT INTO embeddings VALUES ('m', 'hq', ?)", (query.astype(np.float32).tobytes(),))
    conn.execute("INSERT INTO chunks VALUES (99999, 'v', 'hq')")
    gc.disable()  # the replaced snapshot must go with its rankings by reference counting alone
    try:
        after = vectors.scan_ranking(conn, cache, "v", "m", query, first_pass_rows=10**9)
        assert after(1)[0][0] == 99999
        assert old() is None
    finally:
        gc.enable()
