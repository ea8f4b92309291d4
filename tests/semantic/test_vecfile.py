"""The vector file layout (service/semantic/vecfile.py): int8 codes in memory, float32 rows in a
file rescored exactly. Its answers equal the in-memory exact scan's, it follows every change
without a read from scratch, a restarted cache restores it from its checkpoint, a damaged or
truncated file is rebuilt from the index, and a process killed while writing leaves a checkpoint
that restores to the index's answers."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from service.semantic import codes, vecfile, vectors
from service.storage.migrate import load_migrations
from tests.semantic.helpers import VAULT, semantic, settled

DIM = 384
ROWS = 6000
Array = np.ndarray[Any, Any]


def unit(rows: Array) -> Array:
    out: Array = (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)
    return out


def embedded_like(rng: np.random.Generator, n: int) -> Array:
    topics = rng.standard_normal((40, DIM))
    return unit(rng.standard_normal(DIM) + rng.standard_normal((n, 40)) @ topics + 0.5 * rng.standard_normal((n, DIM)))


def index(path: Path, matrix: Array) -> sqlite3.Connection:
    """An index file holding one vector per chunk (the tables `ScanCache.matrix` reads)."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("CREATE TABLE chunks (id INTEGER PRIMARY KEY, vault_id TEXT, hash TEXT)")
    conn.execute("CREATE TABLE embeddings (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))")
    conn.execute("CREATE INDEX chunks_by_vault_hash ON chunks(vault_id, hash)")
    conn.execute("CREATE INDEX embeddings_keys ON embeddings(model, hash)")
    (log,) = [m for m in load_migrations() if m.name == "chunk_changes"]
    conn.executescript(log.sql)
    conn.execute("BEGIN")
    for n, row in enumerate(matrix):
        conn.execute("INSERT INTO chunks VALUES (?, 'v', ?)", (n + 1, f"h{n}"))
        conn.execute("INSERT INTO embeddings VALUES ('m', ?, ?)", (f"h{n}", row.tobytes()))
    conn.execute("COMMIT")
    return conn


def on_disk(folder: Path) -> vectors.ScanCache:
    return vectors.ScanCache(directory=folder, disk_rows=0)


def ranked(conn: sqlite3.Connection, cache: vectors.ScanCache, q: Array, k: int) -> list[tuple[int, float]]:
    return vectors.scan_ranking(conn, cache, "v", "m", q, first_pass_rows=0, candidate_share=2)(k)


def exact(conn: sqlite3.Connection, q: Array, k: int) -> list[tuple[int, float]]:
    """The in-memory scan of every vector, read from scratch: the oracle."""
    return vectors.scan_ranking(conn, vectors.ScanCache(), "v", "m", q, first_pass_rows=10**9)(k)


def same(a: list[tuple[int, float]], b: list[tuple[int, float]]) -> None:
    assert [i for i, _ in a] == [i for i, _ in b]
    assert np.allclose([s for _, s in a], [s for _, s in b], atol=1e-6)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


@pytest.fixture
def setup(tmp_path: Path, rng: np.random.Generator) -> tuple[sqlite3.Connection, Array, Path]:
    matrix = embedded_like(rng, ROWS)
    return index(tmp_path / "cache.db", matrix), matrix, tmp_path / "vectors"


def queries(rng: np.random.Generator, matrix: Array) -> list[Array]:
    return [*unit(rng.standard_normal((2, DIM))), matrix[17], unit(matrix[5] + matrix[900])]


def test_the_file_layout_returns_the_exact_scans_top_k(setup: Any, rng: np.random.Generator) -> None:
    conn, matrix, folder = setup
    cache = on_disk(folder)
    for q in queries(rng, matrix):
        for k in (1, 10, 64, 250, 1500, 7000):  # 1500 and 7000: deeper than the first pass answers
            same(ranked(conn, cache, q, k), exact(conn, q, k))
    mat = cache.matrix(conn, "v", "m")
    assert mat.disk is not None and mat.small is not None and mat.codes is None  # no float rows or codes held
    assert mat.small.lead.dtype == np.int8 and mat.vectors.strides == (0, 0)


def test_edits_and_deletes_are_visible_without_a_read_from_scratch(
    setup: Any, rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, matrix, folder = setup
    cache = on_disk(folder)
    q = matrix[40]
    ranked(conn, cache, q, 10)

    def no_build(*args: object) -> object:
        raise AssertionError("read from scratch")

    monkeypatch.setattr(vecfile, "build", no_build)
    conn.execute("DELETE FROM chunks WHERE id = 41")  # the query's own chunk: it must leave the answer
    conn.execute("UPDATE chunks SET hash = 'h100b' WHERE id = 101")  # chunk 101 holds other text now
    conn.execute("INSERT INTO embeddings VALUES ('m', 'h100b', ?)", (unit(q + 0.01).tobytes(),))
    conn.execute("INSERT INTO chunks VALUES (?, 'v', 'new')", (ROWS + 5,))
    conn.execute("INSERT INTO embeddings VALUES ('m', 'new', ?)", (unit(q + 0.02).tobytes(),))
    got = ranked(conn, cache, q, 64)
    same(got, exact(conn, q, 64))
    assert 41 not in [i for i, _ in got] and [i for i, _ in got][:2] in ([101, ROWS + 5], [ROWS + 5, 101])


def test_a_restarted_cache_restores_the_checkpoint_and_applies_later_changes(
    setup: Any, rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, matrix, folder = setup
    first = on_disk(folder)
    ranked(conn, first, matrix[3], 10)
    first.close()
    conn.execute("DELETE FROM chunks WHERE id IN (4, 5, 6)")  # while no process holds the files
    built: list[int] = []
    real = vecfile.build
    monkeypatch.setattr(vecfile, "build", lambda *a: built.append(1) or real(*a))
    again = on_disk(folder)
    for q in queries(rng, matrix):
        same(ranked(conn, again, q, 64), exact(conn, q, 64))
    assert built == []
    assert again.matrix(conn, "v", "m").disk is not None


@pytest.mark.parametrize("damage", ["truncated", "overwritten", "checkpoint"])
def test_a_damaged_vector_file_is_rebuilt_from_the_index(
    setup: Any, rng: np.random.Generator, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    conn, matrix, folder = setup
    first = on_disk(folder)
    ranked(conn, first, matrix[3], 10)
    first.close()
    (data,) = folder.glob("*.f32")
    if damage == "truncated":
        os.truncate(data, data.stat().st_size // 2)
    elif damage == "overwritten":
        data.write_bytes(rng.standard_normal(data.stat().st_size // 4).astype(np.float32).tobytes())
    else:
        (checkpoint,) = folder.glob("*.npz")
        checkpoint.write_bytes(checkpoint.read_bytes()[:1000])
    built: list[int] = []
    real = vecfile.build
    monkeypatch.setattr(vecfile, "build", lambda *a: built.append(1) or real(*a))
    again = on_disk(folder)
    for q in queries(rng, matrix):
        same(ranked(conn, again, q, 64), exact(conn, q, 64))
    assert built == [1]


def test_a_second_process_on_the_same_index_keeps_its_vectors_in_memory(setup: Any) -> None:
    conn, matrix, folder = setup
    holder = on_disk(folder)
    ranked(conn, holder, matrix[1], 5)
    other = on_disk(folder)  # its own lock file description: the lock is taken
    same(ranked(conn, other, matrix[1], 64), exact(conn, matrix[1], 64))
    assert other.matrix(conn, "v", "m").disk is None and holder.matrix(conn, "v", "m").disk is not None


CHILD = textwrap.dedent(
    """
    import sqlite3, sys
    import numpy as np
    from pathlib import Path
    from service.semantic import vecfile, vectors
    vecfile.CHECKPOINT_ROWS, vecfile.CHECKPOINT_SHARE = 1, 10**9  # a checkpoint after every change
    db, folder = sys.argv[1], Path(sys.argv[2])
    conn = sqlite3.connect(db, isolation_level=None)
    cache = vectors.ScanCache(directory=folder, disk_rows=0)
    q = np.ones(384, dtype=np.float32) / np.sqrt(384)
    rng = np.random.default_rng(3)
    n = 0
    while True:
        n += 1
        v = rng.standard_normal(384).astype(np.float32)
        conn.execute("INSERT INTO embeddings VALUES ('m', ?, ?)", (f"k{n}", (v / np.linalg.norm(v)).tobytes()))
        conn.execute("INSERT INTO chunks VALUES (?, 'v', ?)", (100000 + n, f"k{n}"))
        conn.execute("DELETE FROM chunks WHERE id = ?", (n,))
        vectors.scan_ranking(conn, cache, "v", "m", q, first_pass_rows=0)(10)
        if n == 3:
            print("running", flush=True)
    """
)


def test_a_process_killed_while_writing_leaves_files_that_restore_to_the_index(
    setup: Any, rng: np.random.Generator
) -> None:
    conn, matrix, folder = setup
    first = on_disk(folder)
    ranked(conn, first, matrix[3], 10)
    first.close()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(folder.parent / "cache.db"), str(folder)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "running"  # it writes rows and checkpoints now
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        if child.stdout is not None:
            child.stdout.close()
    again = on_disk(folder)
    for q in queries(rng, matrix):
        same(ranked(conn, again, q, 64), exact(conn, q, 64))
    assert again.matrix(conn, "v", "m").disk is not None


def test_a_matrix_grown_past_the_threshold_moves_into_the_file(setup: Any, rng: np.random.Generator) -> None:
    conn, matrix, folder = setup
    cache = vectors.ScanCache(directory=folder, disk_rows=ROWS + 2)
    ranked(conn, cache, matrix[1], 10)
    assert cache.matrix(conn, "v", "m").disk is None  # below the threshold: in memory
    for n in range(2):
        conn.execute("INSERT INTO chunks VALUES (?, 'v', ?)", (ROWS + 10 + n, f"g{n}"))
        conn.execute("INSERT INTO embeddings VALUES ('m', ?, ?)", (f"g{n}", unit(matrix[1] + n).tobytes()))
    same(ranked(conn, cache, matrix[1], 64), exact(conn, matrix[1], 64))
    assert cache.matrix(conn, "v", "m").disk is not None


def test_vectors_of_fewer_than_256_dimensions_stay_in_memory(tmp_path: Path, rng: np.random.Generator) -> None:
    small = unit(rng.standard_normal((300, 64)))
    conn = index(tmp_path / "cache.db", small)
    cache = on_disk(tmp_path / "vectors")
    same(ranked(conn, cache, small[4], 10), exact(conn, small[4], 10))
    assert cache.matrix(conn, "v", "m").disk is None


FILE_LAYOUT = {"provider": "builtin", "debounce_ms": 0, "scan_first_pass_rows": 0, "scan_candidate_share": 1}


async def test_the_tools_answer_from_the_vector_file_and_a_restarted_server_restores_it(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(VAULT)
    async with semantic(root, embeddings=dict(FILE_LAYOUT)) as h:
        out = await h.ok("search_semantic", query="how do I make bread with a natural leaven", limit=1)
        assert out["items"][0]["path"] == "Baking/Sourdough.md"
        engine = h.app.semantic
        held = engine.cache.held(next(iter(h.app.vaults)), engine.embedder().name)
        assert held is not None and held.disk is not None
        await h.ok("create_note", path="Zed/Tides.md", content="# Tides\n\nRock pools at low tide hold crabs.\n")
        await settled(h)
        out = await h.ok("search_semantic", query="crabs in rock pools by the sea", limit=1)
        assert out["items"][0]["path"] == "Zed/Tides.md"
        before = [(i["path"], i["score"]) for i in (await h.ok("search_semantic", query="young cat", limit=5))["items"]]
    built: list[int] = []
    real = vecfile.build
    monkeypatch.setattr(vecfile, "build", lambda *a: built.append(1) or real(*a))
    async with semantic(root, embeddings=dict(FILE_LAYOUT)) as h:
        after = [(i["path"], i["score"]) for i in (await h.ok("search_semantic", query="young cat", limit=5))["items"]]
    assert after == before and built == []


def test_the_coarse_look_of_a_large_matrix_keeps_the_exact_top_k(rng: np.random.Generator) -> None:
    matrix = embedded_like(rng, 40_000)
    basis, steps = codes.fit_small(matrix)
    small = codes.Small.of(basis, steps, codes.small_of(matrix, basis, steps))
    ids = np.arange(1, len(matrix) + 1, dtype=np.int64)
    dead = np.arange(5, 400, dtype=np.int64)  # rows of chunks changed since: never answered
    ids[dead] = -1
    mat = vectors._Matrix(0, 0, ids, matrix, matrix, dead, small=small)
    assert codes.refine_share(len(ids), vectors.pass_size(250)) is not None  # the coarse look answers
    for q in [*queries(rng, matrix), matrix[7]]:
        fast, plain = vectors._ranking(mat, q, 0, 8), vectors._ranking(mat, q, 10**9, 8)
        for k in (1, 10, 64, 250):
            got = fast(k)
            same(got, plain(k))
            assert all(i > 0 for i, _ in got)


def test_a_remembered_ranking_keeps_the_coarse_looks_rows_not_every_rows_estimate(rng: np.random.Generator) -> None:
    """After a coarse look a ranking keeps the rows it kept with their completed estimates (a
    sixteenth of them at 583,081 chunks), not an estimate of every row; a later k keeping as many rows
    reuses them, one keeping more looks again, and each answers as a ranking made for it alone."""
    from service.semantic import firstpass

    matrix = embedded_like(rng, 40_000)
    basis, steps = codes.fit_small(matrix)
    small = codes.Small.of(basis, steps, codes.small_of(matrix, basis, steps))
    ids = np.arange(1, len(matrix) + 1, dtype=np.int64)
    dead = np.arange(5, 400, dtype=np.int64)
    ids[dead] = -1
    mat = vectors._Matrix(0, 0, ids, matrix, matrix, dead, small=small)
    for q in queries(rng, matrix):
        estimated: dict[str, tuple[Array, ...]] = {}
        first = firstpass.candidates(mat, q, vectors.pass_size(64), estimated)
        assert list(estimated) == ["refined"]
        kept = estimated["refined"]
        assert len(kept[0]) == codes.refine_share(len(ids), vectors.pass_size(64)) < len(ids) // 2
        assert sum(a.nbytes for a in kept) < 4 * len(ids)  # an estimate of every row: 4 bytes a row
        assert np.array_equal(first, firstpass.candidates(mat, q, vectors.pass_size(64), {}))
        later = firstpass.candidates(mat, q, vectors.pass_size(250), estimated)  # as many rows kept
        assert estimated["refined"] is kept
        assert np.array_equal(later, firstpass.candidates(mat, q, vectors.pass_size(250), {}))
        deeper = firstpass.candidates(mat, q, vectors.pass_size(300), estimated)  # more rows: a new look
        assert len(estimated["refined"][0]) > len(kept[0])
        assert np.array_equal(deeper, firstpass.candidates(mat, q, vectors.pass_size(300), {}))
        assert not np.isin(deeper, dead).any() and deeper.dtype == np.intp


def test_int8_estimates_of_any_rows_and_axes_equal_the_products_of_the_widened_codes(
    rng: np.random.Generator,
) -> None:
    """The estimates (one reused buffer per block, rows gathered 8 axes at a time when aligned)
    equal the plain product of the widened codes, past a block boundary, for rows in any order."""
    matrix = embedded_like(rng, codes.BLOCK + 300)
    basis, steps = codes.fit_small(matrix)
    small = codes.Small.of(basis, steps, codes.small_of(matrix, basis, steps))
    q = queries(rng, matrix)[0]
    at = rng.permutation(len(matrix))[: codes.BLOCK + 7]
    for axes, skip in ((None, 0), (codes.COARSE_AXES, 0), (None, codes.COARSE_AXES), (70, 3)):
        use = codes.CODE_DIM if axes is None else axes
        wanted = small.joined()[:, skip:use].astype(np.float64) @ ((q @ basis.axes[:, skip:use]) * steps[skip:use])
        got = codes.small_estimates(small, q, axes=axes, skip=skip)
        np.testing.assert_allclose(got, wanted, rtol=1e-4, atol=1e-4)
        picked = codes.small_estimates(small, q, axes=axes, skip=skip, at=at)
        np.testing.assert_allclose(picked, wanted[at], rtol=1e-4, atol=1e-4)
    assert codes.small_estimates(small, q, at=np.zeros(0, dtype=np.int64)).shape == (0,)


def test_a_model_no_longer_searched_leaves_no_vector_file(setup: Any) -> None:
    conn, matrix, folder = setup
    cache = on_disk(folder)
    ranked(conn, cache, matrix[1], 10)
    assert list(folder.glob("*.f32")) and list(folder.glob("*.npz"))
    cache.forget("v", "m")
    assert not list(folder.glob("*.f32")) and not list(folder.glob("*.npz"))
    assert cache.held("v", "m") is None


def test_a_vector_file_cut_short_while_in_use_is_built_again_not_a_failed_search(
    setup: Any, rng: np.random.Generator
) -> None:
    conn, matrix, folder = setup
    cache = on_disk(folder)
    ranked(conn, cache, matrix[1], 10)
    (data,) = folder.glob("*.f32")
    os.truncate(data, 4096)
    q = unit(rng.standard_normal(DIM))
    same(ranked(conn, cache, q, 64), exact(conn, q, 64))
    (rebuilt,) = folder.glob("*.f32")
    assert rebuilt != data and cache.matrix(conn, "v", "m").disk is not None
