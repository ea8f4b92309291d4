"""The SQLite database (`cache.db`): one writer, a pool of WAL readers, on an extension-capable driver.

The stdlib `sqlite3` on our machines cannot load extensions, so connections are made with `sqlean` (a drop-in
sqlite3 build) when it is installed, falling back to `sqlite3` (`service.storage.driver`, re-exported here as
`driver`). sqlite-vec is loaded on every connection when possible; `backends` records what is active so `/readyz`
and `server_health` can report it, and vector search degrades to a brute-force scan when `vec` is false.

All writes go through `transaction()`, which holds the single writer connection for one transaction; reads use
`read()` on a pooled connection of their own, and a closed database's reads are `server_stopping` (`reader_pool`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import logging
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite

from service.storage.driver import driver as driver  # re-exported: callers import it from here
from service.storage.reader_pool import ReaderPool
from service.storage.scan_cache import scan_cache

log = logging.getLogger(__name__)
T = TypeVar("T")
# Page cache per connection: the writer's 2 MB (8 MB during a bulk load and the trigram rebuild,
# `service/indexer/bulk.py`), each of the `readers` readers' 4 MB (four by default) and the point reader's 256 KB: 18
# MB at most, where six connections of 8 MB each were 48 MB. At 32 MB each, the writer's alone added ~25 MB to the
# peak of a cold 10k-note index, and the readers' filled with the first searches. A cold index filled the writer's 8
# MB and kept them for good, where a write of one note touches a few dozen pages (docs/benchmarks.md). In WAL mode a
# reader's cache is dropped whenever another connection commits anyway, and the OS file cache answers a miss in
# microseconds; at 4 MB a reader's search_text costs the same CPU as at 8 MB (docs/benchmarks.md). The point reader
# looks up single rows by key, a note's once (read_note keeps the last 512 notes' facts): at 256 KB its b-trees' inner
# pages stay and a lookup costs what it did at 1 MB (~12 µs). `state.db` (audit rows appended, records looked up by
# key) gets 2 MB for its writer and 1 MB for its reader. SQLite keeps a connection's cache allocated once filled: the
# limits are what it grows to.
CACHE_KIB = 2000
BULK_CACHE_KIB = 8000
READER_CACHE_KIB = 4000
POINT_CACHE_KIB = 256


def _error_classes(name: str) -> tuple[type[Exception], ...]:
    """`sqlite3.<name>` plus the driver's own class: sqlean's exceptions do not subclass the stdlib's."""
    classes: list[type[Exception]] = [getattr(sqlite3, name)]
    module = driver()
    if module is not sqlite3:
        classes.append(getattr(module, name))
    return tuple(classes)


# Catch these (not `sqlite3.Error`) around queries: they cover whichever driver is in use.
DbError = _error_classes("Error")
DbOperationalError = _error_classes("OperationalError")

# A reader's statement that opens a virtual table (FTS5's `fts_words`, sqlite-vec's tables) connects it while being
# prepared, and that connect runs statements of its own, each in a read transaction of its own outside a transaction.
# Should the schema change between them (after a cold load the writer builds the deferred indexes one by one, then the
# trigram index; every schema change drops each connection's virtual tables), the statement fails with SQLITE_SCHEMA
# ("vtable constructor failed: fts_words"), which SQLite's own prepare retries only once: under a run of schema
# changes, reads failed at random. `Database.run_read` runs such a read once more inside one read transaction
# (`_in_snapshot`), where the schema cannot change under it.
_SQLITE_SCHEMA = 17


# Several processes share one cache.db (stdio instances on one vault). A writer waits for another's write lock up to
# BUSY_TIMEOUT_MS (SQLite's busy handler, which polls); a transaction of theirs (a reconcile, an index build) or a run
# of them can hold it longer, and then BEGIN IMMEDIATE failed with "database is locked" and the update was dropped:
# s61 T1 saw it from the watcher, a writer's update round and query_warmup with four instances writing at once (a
# watcher batch then stayed stale until the next reconcile). Nothing has run when BEGIN IMMEDIATE fails, so it is
# tried again after each pause of LOCK_PAUSES_S (~50 s in all with the busy waits).
BUSY_TIMEOUT_MS = 5000
LOCK_PAUSES_S = (0.05, 0.25, 1.0, 3.0, 10.0)
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6


def locked(exc: BaseException) -> bool:
    """Whether `exc` is SQLite's SQLITE_BUSY / SQLITE_LOCKED ("database is locked")."""
    if not isinstance(exc, DbOperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (_SQLITE_BUSY, _SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


def begin_immediate(conn: sqlite3.Connection, stop: threading.Event | None = None) -> None:
    """BEGIN IMMEDIATE, tried again while another connection holds the write lock (above); no
    more pauses once `stop` is set (the database is closing: the last error is raised)."""
    for pause in (*LOCK_PAUSES_S, None):
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except DbOperationalError as exc:
            if pause is None or not locked(exc) or (stop is not None and stop.is_set()):
                raise
            log.warning("cache.db is locked by another connection; trying again in %.2f s", pause)
            if stop is not None:
                stop.wait(pause)
            else:
                time.sleep(pause)


def schema_changed(exc: BaseException) -> bool:
    """Whether `exc` is SQLite's SQLITE_SCHEMA: the schema changed under the statement (run again, it does not)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, DbOperationalError) and isinstance(code, int) and code & 0xFF == _SQLITE_SCHEMA


@dataclass
class Backends:
    driver: str = "sqlite3"
    sqlite_version: str = ""
    fts5: bool = False
    vec: bool = False
    vec_version: str | None = None
    vec_error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "driver": self.driver,
            "sqlite_version": self.sqlite_version,
            "fts5": self.fts5,
            "sqlite_vec": self.vec,
            "sqlite_vec_version": self.vec_version,
            "sqlite_vec_error": self.vec_error,
            **self.extra,
        }


@functools.cache
def _vec_library() -> str:
    """The sqlite-vec extension bundled with its Python package, found without importing the
    package: its `__init__` imports numpy (15 MB and ~0.2 s), which a server without embeddings
    never needs."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("sqlite-vec is not installed")
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


def load_vec(conn: sqlite3.Connection) -> None:
    """Load sqlite-vec into one connection (as `sqlite_vec.load` does)."""
    conn.enable_load_extension(True)
    try:
        conn.load_extension(_vec_library())
    finally:
        conn.enable_load_extension(False)


def set_cache(conn: sqlite3.Connection, kib: int) -> None:
    """Cap `conn`'s page cache at `kib` KiB; lowering it frees the pages over it (an open transaction's at its end)."""
    conn.execute(f"PRAGMA cache_size=-{kib}")


def connect(path: Path | str, backends: Backends | None = None, *, cache_kib: int = CACHE_KIB) -> sqlite3.Connection:
    """Open one configured connection (usable from any single thread)."""
    module = driver()
    conn: sqlite3.Connection = module.connect(str(path), check_same_thread=False, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
    except BaseException:  # a file that is no database fails here (its first read): its handle is not kept
        conn.close()
        raise
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA temp_store=MEMORY")
    set_cache(conn, cache_kib)
    vec_version: str | None = None
    vec_error: str | None = None
    try:
        load_vec(conn)
        vec_version = conn.execute("SELECT vec_version()").fetchone()[0]
    except Exception as exc:  # noqa: BLE001 - any failure means "no sqlite-vec"
        vec_error = f"{type(exc).__name__}: {exc}"
    if backends is not None:
        backends.driver = module.__name__
        backends.sqlite_version = conn.execute("SELECT sqlite_version()").fetchone()[0]
        backends.vec = vec_version is not None
        backends.vec_version = vec_version
        backends.vec_error = vec_error
        try:
            conn.execute("CREATE VIRTUAL TABLE temp._fts5_probe USING fts5(x)")
            conn.execute("DROP TABLE temp._fts5_probe")
            backends.fts5 = True
        except DbError:
            backends.fts5 = False
    return conn


class Database:
    """cache.db: `transaction()` for the single writer, `read()` for pooled readers."""

    def __init__(
        self,
        path: Path,
        *,
        readers: int = 4,
        writer_cache_kib: int = CACHE_KIB,
        reader_cache_kib: int = READER_CACHE_KIB,
    ) -> None:
        self.path = path
        self.backends = Backends()
        self._reader_count = readers
        self._cache_kib = (writer_cache_kib, reader_cache_kib)
        self._writer: aiosqlite.Connection | None = None
        self._write_lock = asyncio.Lock()
        self._closing = False
        self._begins: set[threading.Event] = set()  # set by close() or the cancel of their call: no more pauses
        self._readers = ReaderPool()  # the idle ones, last used first
        self._point: sqlite3.Connection | None = None

    async def open(self) -> None:
        self._closing = False
        self.path.parent.mkdir(parents=True, exist_ok=True)
        writer_kib, reader_kib = self._cache_kib
        self._writer = await aiosqlite.Connection(lambda: connect(self.path, self.backends, cache_kib=writer_kib), 64)
        for _ in range(self._reader_count):
            reader = await aiosqlite.Connection(lambda: connect(self.path, cache_kib=reader_kib), 64)
            self._readers.add(reader)
        self._point = connect(self.path, cache_kib=POINT_CACHE_KIB)
        self._point.execute("PRAGMA busy_timeout=0")  # never wait on the event loop

    def point_read(self, sql: str, params: Any = ()) -> Any:
        """One small row by an indexed lookup, run right here on the event loop.

        A thread hop to a pooled reader costs more (~0.1 ms) than such a query (~20 µs) — this is the hot path of
        read_note. In WAL mode readers do not wait for the writer; should the database still be busy, a
        `DbOperationalError` is raised at once and callers fall back to `run_read`. Never use this for scans."""
        if self._point is None:
            raise sqlite3.OperationalError("database is not open")
        return self._point.execute(sql, params).fetchone()

    async def close(self) -> None:
        self._closing = True
        for stop in self._begins:
            stop.set()
        if self._point is not None:
            self._point.close()
            self._point = None
        for reader in self._readers.close():  # its reads waiting for a reader are server_stopping
            await reader.close()
        if self._writer is not None:
            with contextlib.suppress(*DbError):
                await self._writer.execute("PRAGMA optimize")
            await self._writer.close()
            self._writer = None

    @contextlib.contextmanager
    def _begin_stop(self) -> Iterator[threading.Event]:
        """The stop of one BEGIN's pauses for the write lock: set at close (or by its caller)."""
        stop = threading.Event()
        if self._closing:
            stop.set()
        self._begins.add(stop)
        try:
            yield stop
        finally:
            self._begins.discard(stop)

    @property
    def writer(self) -> aiosqlite.Connection:
        if self._writer is None:
            raise RuntimeError("database is not open")
        return self._writer

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """The writer connection inside BEGIN IMMEDIATE … COMMIT (ROLLBACK on error)."""
        async with self._write_lock:
            conn = self.writer
            with self._begin_stop() as stop:
                begin = asyncio.ensure_future(in_thread(conn, functools.partial(begin_immediate, stop=stop)))
                try:
                    await asyncio.shield(begin)
                except asyncio.CancelledError:  # its last try ends in its thread: end what it opens
                    stop.set()
                    with contextlib.suppress(BaseException):
                        await asyncio.shield(begin)
                        await asyncio.shield(conn.execute("ROLLBACK"))
                    raise
            try:
                yield conn
            except BaseException:
                await conn.execute("ROLLBACK")
                raise
            await conn.execute("COMMIT")

    @asynccontextmanager
    async def read(self) -> AsyncIterator[aiosqlite.Connection]:
        conn = await self._readers.take()
        try:
            yield conn
        finally:
            self._readers.give_back(conn)

    @property
    def _all_readers(self) -> list[aiosqlite.Connection]:
        return self._readers.readers

    async def release_memory(self) -> int:
        """Give back the page caches of the connections not in use; the number released.

        A connection keeps its page cache allocated up to its limit once filled (`CACHE_KIB` above): four readers a
        search burst went through hold 16 MB for as long as the server runs, while a reader's next query after a
        release reads its pages from the OS file cache again (~0.1 ms more for the first of 14 word queries at 10k
        notes, none after). `PRAGMA shrink_memory` frees every page not in use; `service.heap.HeapTrimmer` then hands
        the freed memory back to the OS. A reader in use, the writer while a transaction holds it (a bulk load), and a
        closed database are left alone. The idle readers are taken out of the pool together and put back in their
        order, so the reader used last stays first."""
        if not self._all_readers:
            return 0  # not open, or closed
        idle = self._readers.take_idle()
        released = 0
        try:
            for conn in idle:
                await in_thread(conn, _shrink)
                released += 1
        finally:
            for conn in reversed(idle):
                self._readers.give_back(conn)
        if self._writer is not None and not self._write_lock.locked():
            async with self._write_lock:
                if self._writer is not None:
                    await in_thread(self._writer, _shrink)
                    released += 1
        if self._point is not None:
            _shrink(self._point)  # on the loop like its reads: frees pages, reads nothing
            released += 1
        return released

    async def fetchall(self, sql: str, params: Any = ()) -> list[sqlite3.Row | tuple[Any, ...]]:
        return await self.run_read(lambda conn: conn.execute(sql, params).fetchall())

    async def fetchone(self, sql: str, params: Any = ()) -> Any:
        return await self.run_read(lambda conn: conn.execute(sql, params).fetchone())

    async def run_write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run a synchronous function against the writer's raw connection, in its thread, in a
        transaction. For bulk work (indexing) where one thread hop per statement would dominate."""
        async with self._write_lock:
            conn = self.writer

            def work(raw: sqlite3.Connection, stop: threading.Event) -> T:
                begin_immediate(raw, stop)
                try:
                    out = fn(raw)
                except BaseException:
                    raw.execute("ROLLBACK")
                    raise
                raw.execute("COMMIT")
                return out

            with self._begin_stop() as stop:
                return await in_thread(conn, functools.partial(work, stop=stop))

    async def run_scan(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """`run_read` for a read of a whole table: on the idle reader used longest ago (the searches'
        warm one stays warm), its page cache kept small (`service.storage.scan_cache`)."""

        def scan(conn: sqlite3.Connection) -> T:
            with scan_cache(conn):
                return fn(conn)

        idle = self._readers.take_idle()
        for conn in reversed(idle[:-1]):  # the others back in their order: the one used last stays first
            self._readers.put_nowait(conn)
        conn = idle[-1] if idle else await self._readers.take()
        try:
            return await self._read_on(conn, scan)
        finally:
            self._readers.give_back(conn)

    async def run_read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run a synchronous function on a pooled reader's raw connection, in its thread; once more, in one read
        transaction, when the schema changed under it (`fn` only reads, so running it again is safe). A caller that
        turns database errors into errors of its own re-raises those `schema_changed` says yes to."""
        async with self.read() as conn:
            return await self._read_on(conn, fn)

    async def _read_on(self, conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
        try:
            return await in_thread(conn, fn)
        except DbOperationalError as exc:
            if not schema_changed(exc):
                raise
        return await in_thread(conn, functools.partial(_in_snapshot, fn))


def _shrink(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA shrink_memory").fetchall()


def _in_snapshot(fn: Callable[[sqlite3.Connection], T], conn: sqlite3.Connection) -> T:
    """`fn(conn)` in one read transaction, begun (reading the schema cookie) before `fn`'s first statement is
    prepared: the schema its statements, and the virtual tables they connect, see is the one the transaction began
    with. Not the usual path: a checkpoint cannot run inside."""
    conn.execute("BEGIN")
    try:
        conn.execute("PRAGMA schema_version").fetchone()
        return fn(conn)
    finally:
        conn.execute("COMMIT")  # only read: ends the snapshot, also with a statement left open


async def in_thread(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> T:
    """Run `fn(raw_connection)` in the aiosqlite connection's own thread.

    The result comes back through a list emptied here, not as the job's return value, and `fn` is let go of as it is
    called: aiosqlite's worker keeps its last job (the function, its result and future) in local variables until its
    next job, so a reader not used again pinned whatever it returned last (a Dataview page set of a whole vault, a
    page of search rows), and whatever its function closed over (a consolidation job's 100k titles), for as long as
    the server ran."""
    execute = cast(Any, conn)._execute
    box: list[T] = []
    held = [fn]
    await execute(lambda: box.append(held.pop()(conn._conn)))
    return box.pop()
