"""The SQLite page cache of every connection the app opens: what its memory can grow to."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.indexer import runner
from service.indexer.runner import VaultIndexer
from service.storage import db as dbmod
from service.storage.scan_cache import SCAN_CACHE_KIB
from tests.conftest import Harness, started
from tests.search_vault import SEARCH_VAULT
from tests.unit.indexer.test_trigram_deferral import _trigram_done


async def _sizes(database: dbmod.Database) -> tuple[int, int, int]:
    writer = await database.run_write(lambda c: c.execute("PRAGMA cache_size").fetchone()[0])
    reader = await database.run_read(lambda c: c.execute("PRAGMA cache_size").fetchone()[0])
    return int(writer), int(reader), int(database.point_read("PRAGMA cache_size")[0])


async def test_each_database_caps_its_page_caches(vg: Harness) -> None:
    index = -dbmod.CACHE_KIB, -dbmod.READER_CACHE_KIB, -dbmod.POINT_CACHE_KIB
    assert await _sizes(vg.app.db) == index
    assert await _sizes(vg.app.state) == (-2000, -1000, -dbmod.POINT_CACHE_KIB)


async def test_the_writer_has_the_bulk_cache_only_while_a_bulk_load_runs(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "BULK_THRESHOLD", 3)
    monkeypatch.setattr(runner, "BATCH", 4)
    during: list[int] = []
    original = VaultIndexer._write_batch

    def spy(indexer: VaultIndexer, conn: Any, **kwargs: Any) -> None:
        during.append(int(conn.execute("PRAGMA cache_size").fetchone()[0]))
        original(indexer, conn, **kwargs)

    monkeypatch.setattr(VaultIndexer, "_write_batch", spy)
    async with started(make_vault(SEARCH_VAULT), index={"parse_workers": 0}) as vg:
        await vg.indexed()
        await _trigram_done(vg.indexer())  # rebuilt with the bulk cache, then lowered again
        assert len(during) > 1 and set(during) == {-dbmod.BULK_CACHE_KIB}
        assert (await _sizes(vg.app.db))[0] == -dbmod.CACHE_KIB


def _memory_used() -> Callable[[], int] | None:
    """The SQLite library's own count of the bytes it has allocated (`sqlite3_memory_used`), from
    the library the driver runs on; None when that library does not export it."""
    import ctypes

    module = dbmod.driver()
    binary = getattr(module, "_sqlite3", None) or __import__(f"{module.__name__}._sqlite3", fromlist=["_"])
    try:
        fn = ctypes.CDLL(binary.__file__).sqlite3_memory_used
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_int64
    return lambda: int(fn())


async def _filled(tmp_path: Path, readers: int) -> dbmod.Database:
    """A database of ~12 MB whose every connection has read all of it (full page caches)."""
    database = dbmod.Database(tmp_path / "cache.db", readers=readers)
    await database.open()
    await database.run_write(lambda c: c.execute("CREATE TABLE t(x BLOB)"))
    for _ in range(3):
        await database.run_write(lambda c: c.executemany("INSERT INTO t VALUES (randomblob(3000))", [()] * 1300))
    await database.run_write(lambda c: c.execute("SELECT count(*) FROM t WHERE length(x) > 0").fetchone())
    for conn in database._all_readers:
        await dbmod.in_thread(conn, lambda c: c.execute("SELECT count(*) FROM t WHERE length(x) > 0").fetchone())
    database.point_read("SELECT count(*) FROM t WHERE length(x) > 0")
    return database


async def test_release_memory_frees_the_page_caches_of_idle_connections(tmp_path: Path) -> None:
    memory_used = _memory_used()
    if memory_used is None:
        pytest.skip("the SQLite library does not export sqlite3_memory_used")
    database = await _filled(tmp_path, readers=3)
    try:
        before = memory_used()
        assert await database.release_memory() == 5  # three readers, the writer, the point reader
        freed = before - memory_used()
        # Full caches: 3 x 4 MB + 2 MB + 1 MB; most of it must be freed.
        assert freed > 10_000_000, freed
        rows = await database.fetchone("SELECT count(*) FROM t")  # the readers still read
        assert rows[0] == 3900
    finally:
        await database.close()
    assert await database.release_memory() == 0  # closed: nothing to do, no error


async def test_release_memory_leaves_busy_connections_and_the_pool_order(tmp_path: Path) -> None:
    database = await _filled(tmp_path, readers=3)
    shrunk: list[str] = []
    try:
        names = {id(c): f"reader{i}" for i, c in enumerate(database._all_readers)}
        for conn in database._all_readers:
            name = names[id(conn)]
            await dbmod.in_thread(
                conn,
                lambda c, n=name: c.set_trace_callback(
                    lambda sql: shrunk.append(n) if "shrink_memory" in sql else None
                ),
            )
        order = [id(c) for c in database._readers._queue]  # type: ignore[attr-defined]
        async with database.read() as busy, database.transaction():
            released = await database.release_memory()
        assert released == 2 + 1  # the two idle readers and the point reader: not the busy one, not the writer
        assert sorted(shrunk) == sorted(n for i, n in names.items() if i != id(busy))
        assert [id(c) for c in database._readers._queue] == order  # type: ignore[attr-defined]
        shrunk.clear()
        assert await database.release_memory() == 5
        assert sorted(shrunk) == sorted(names.values())
    finally:
        await database.close()


def _cache_used() -> Callable[[Any], int] | None:
    """The page cache in use of one raw connection (`sqlite3_db_status(SQLITE_DBSTATUS_CACHE_USED)`),
    from the library the driver runs on; None when it does not export it. The connection's
    `sqlite3 *` is the first field after the object header (CPython's and sqlean's Connection),
    checked against the file the connection has open."""
    import ctypes

    module = dbmod.driver()
    binary = getattr(module, "_sqlite3", None) or __import__(f"{module.__name__}._sqlite3", fromlist=["_"])
    try:
        lib = ctypes.CDLL(binary.__file__)
        status, filename = lib.sqlite3_db_status, lib.sqlite3_db_filename
    except (OSError, AttributeError):
        return None
    status.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]
    status.argtypes.append(ctypes.c_int)
    filename.argtypes, filename.restype = [ctypes.c_void_p, ctypes.c_char_p], ctypes.c_char_p

    def used(conn: Any) -> int:
        handle = ctypes.c_void_p.from_address(id(conn) + object.__basicsize__).value
        main = conn.execute("PRAGMA database_list").fetchone()[2]
        assert handle and filename(handle, b"main").decode() == main  # the right handle
        current, highest = ctypes.c_int(), ctypes.c_int()
        assert status(handle, 1, ctypes.byref(current), ctypes.byref(highest), 0) == 0  # CACHE_USED, SQLITE_OK
        return current.value

    return used


async def test_a_scan_leaves_its_reader_s_page_cache_small_and_the_warm_reader_warm(tmp_path: Path) -> None:
    used = _cache_used()
    if used is None:
        pytest.skip("the SQLite library does not export sqlite3_db_status")
    database = await _filled(tmp_path, readers=2)  # ~12 MB: each reader's 4 MB cache full
    scan = "SELECT count(*) FROM t WHERE length(x) > 0"
    try:
        await database.release_memory()  # both readers empty, then one warmed by a read (a search's)
        warm = await database.run_read(lambda c: (c.execute(scan).fetchone(), c)[1])
        counted, scanned = await database.run_scan(lambda c: (c.execute(scan).fetchone()[0], c))
        assert counted == 3900 and scanned is not warm  # the idle reader used longest ago
        by_raw = {r._conn: r for r in database._all_readers}
        assert await dbmod.in_thread(by_raw[scanned], used) <= 2 * SCAN_CACHE_KIB * 1024  # not 4 MB
        assert await dbmod.in_thread(by_raw[warm], used) > 3_000_000  # still warm
        during = await database.run_scan(lambda c: c.execute("PRAGMA cache_size").fetchone()[0])
        after = {
            await dbmod.in_thread(r, lambda c: c.execute("PRAGMA cache_size").fetchone()[0]) for r in by_raw.values()
        }
        assert during == -SCAN_CACHE_KIB and after == {-dbmod.READER_CACHE_KIB}  # the cap set back
    finally:
        await database.close()


async def test_a_scan_on_the_only_reader_empties_its_full_cache_and_keeps_its_cap(tmp_path: Path) -> None:
    used = _cache_used()
    if used is None:
        pytest.skip("the SQLite library does not export sqlite3_db_status")
    database = await _filled(tmp_path, readers=1)
    scan = "SELECT count(*) FROM t WHERE length(x) > 0"
    try:
        (reader,) = database._all_readers
        assert await dbmod.in_thread(reader, used) > 3_000_000  # full from `_filled`
        assert await database.run_scan(lambda c: c.execute(scan).fetchone()[0]) == 3900
        assert await dbmod.in_thread(reader, used) <= 2 * SCAN_CACHE_KIB * 1024
        assert await database.run_read(lambda c: c.execute(scan).fetchone()[0]) == 3900
        assert await dbmod.in_thread(reader, used) > 3_000_000  # an ordinary read fills it as before
    finally:
        await database.close()


async def test_a_database_opened_again_scans_on_its_new_readers(tmp_path: Path) -> None:
    """`close` empties the pool: an app started again in one process (a restart after a drain) had
    its first reconcile's scan handed the reader used longest ago, a closed one of the first
    opening ("no active connection"), and its index failed."""
    db = dbmod.Database(tmp_path / "cache.db", readers=2)
    await db.open()
    await db.close()
    await db.open()
    try:
        for _ in range(3):
            assert await db.run_scan(lambda c: c.execute("SELECT 1").fetchone()[0]) == 1
            assert await db.run_read(lambda c: c.execute("SELECT 2").fetchone()[0]) == 2
        assert db._readers.qsize() == 2
    finally:
        await db.close()


async def test_a_read_or_scan_of_a_closed_database_is_server_stopping_not_a_wait_for_good(tmp_path: Path) -> None:
    """Closed, the pool is empty: a read or a scan waited for a reader for good (a call that reached
    the database after the server stopped hung). Opened again, both read."""
    from service.errors import ServerStopping

    database = dbmod.Database(tmp_path / "c.db", readers=2)
    for attempt in (database.run_read, database.run_scan):  # never opened
        with pytest.raises(ServerStopping):
            await asyncio.wait_for(attempt(lambda c: c.execute("SELECT 1").fetchone()), 60)
    await database.open()
    await database.close()
    for attempt in (database.run_read, database.run_scan):
        with pytest.raises(ServerStopping):
            await asyncio.wait_for(attempt(lambda c: c.execute("SELECT 1").fetchone()), 60)
    await database.open()
    try:
        assert await database.run_scan(lambda c: c.execute("SELECT 1").fetchone()[0]) == 1
        assert await database.run_read(lambda c: c.execute("SELECT 2").fetchone()[0]) == 2
    finally:
        await database.close()


async def test_reads_waiting_for_a_reader_when_the_database_closes_are_server_stopping(tmp_path: Path) -> None:
    """Every reader busy, two reads and a scan wait for one; the database closes: each waiting call is
    server_stopping at once (they waited until an open that never comes). The busy reader, given back
    after the close, is not handed out by the database opened again: only its new readers are."""
    from service.errors import ServerStopping

    database = dbmod.Database(tmp_path / "c.db", readers=1)
    await database.open()
    old = database._all_readers[0]
    async with database.read():  # the only reader, busy
        waiting = [
            asyncio.ensure_future(database.run_read(lambda c: c.execute("SELECT 1").fetchone())),
            asyncio.ensure_future(database.run_read(lambda c: c.execute("SELECT 2").fetchone())),
            asyncio.ensure_future(database.run_scan(lambda c: c.execute("SELECT 3").fetchone())),
        ]
        for _ in range(100_000):  # until the three wait on the pool (a few turns of the loop)
            if len(database._readers._getters) == len(waiting):  # type: ignore[attr-defined]
                break
            await asyncio.sleep(0)
        assert len(database._readers._getters) == len(waiting)  # type: ignore[attr-defined]
        await database.close()
        done = await asyncio.wait_for(asyncio.gather(*waiting, return_exceptions=True), 60)
        assert all(isinstance(out, ServerStopping) for out in done), done
    await database.open()
    try:
        assert database._all_readers[0] is not old and database._readers.qsize() == 1
        assert await database.run_scan(lambda c: c.execute("SELECT 1").fetchone()[0]) == 1
        assert await database.run_read(lambda c: c.execute("SELECT 2").fetchone()[0]) == 2
    finally:
        await database.close()


async def test_a_call_that_reaches_a_stopped_servers_index_is_server_stopping(vg: Harness) -> None:
    await vg.ok("read_note", path="Welcome")
    await vg.app.stop()
    for tool, args in (("search_text", {"query": "welcome"}), ("list_tags", {}), ("plane_status", {})):
        result = await asyncio.wait_for(vg.call(tool, **args), 60)  # before: no answer, ever
        assert result.is_error and result.structured is not None, result
        assert result.structured["error"]["code"] == "server_stopping", (tool, result.structured)
