"""The idle readers of one database, handed out last used first, and what a close does to them.

Last in, first out: the reader used last is handed out again, so at the usual one or two queries
at a time its page cache holds what they read (a queue rotated through all readers, each seeing a
quarter of the queries, kept a colder cache). `Database.run_scan` takes the one used longest ago.

A closed database's pool is empty: a read then is `server_stopping`, never a wait for good, and so
is a read that was waiting for a reader when the close came (`close` wakes it). A reader a read
gives back after the close, or a wake-up nobody took, is passed over: a database opened again
hands out only its new readers.
"""

from __future__ import annotations

import asyncio
import contextlib

import aiosqlite

from service.errors import ServerStopping


class ReaderPool(asyncio.LifoQueue["aiosqlite.Connection | None"]):
    """Idle readers (None: a wake-up from `close`); `readers` is every reader of the open database."""

    def __init__(self) -> None:
        super().__init__()
        self.readers: list[aiosqlite.Connection] = []
        self.closed = True
        self._waiting = 0  # reads waiting for a reader: `close` wakes each

    def add(self, conn: aiosqlite.Connection) -> None:
        self.readers.append(conn)
        self.put_nowait(conn)
        self.closed = False

    async def take(self) -> aiosqlite.Connection:
        """An idle reader, waited for; `server_stopping` once closed."""
        while not self.closed:
            self._waiting += 1
            try:
                conn = await self.get()
            finally:
                self._waiting -= 1
            if conn is not None and conn in self.readers:
                return conn
        raise ServerStopping("the server is stopping: its database is closed")

    def give_back(self, conn: aiosqlite.Connection) -> None:
        if conn in self.readers:  # not a reader a close (and an open) has replaced since
            self.put_nowait(conn)

    def take_idle(self) -> list[aiosqlite.Connection]:
        """Every idle reader, out of the pool: the one used last first."""
        idle: list[aiosqlite.Connection] = []
        with contextlib.suppress(asyncio.QueueEmpty):
            while True:
                conn = self.get_nowait()
                if conn is not None and conn in self.readers:
                    idle.append(conn)
        return idle

    def close(self) -> list[aiosqlite.Connection]:
        """The readers to close; the pool empty, and the reads waiting for one woken (`take`)."""
        self.closed = True
        readers, self.readers = self.readers, []
        self.take_idle()
        for _ in range(self._waiting):
            self.put_nowait(None)
        return readers
