"""The SQLite library every connection to the index comes from, and read-only connections of it.

The stdlib `sqlite3` on our machines cannot load extensions, so connections are made with
`sqlean` (a drop-in sqlite3 build) when it is installed, falling back to `sqlite3`
(`driver`). Every connection the process opens on the index file must come from that one
library: POSIX locks are the process's, so closing another library's handle on the file drops
the index connections' locks, and a connection opened next could reset the shared WAL index
under readers still mapping it (a test run died of SIGBUS there).

`read_only` opens such a connection on a file, for the readers that keep one of their own (the
Dataview and Bases images' point reads, a stdio start's first reads). This module imports only
the driver, so a read before the server is built pays for nothing else.
"""

from __future__ import annotations

import sqlite3
from types import ModuleType


def driver() -> ModuleType:
    """The SQLite module in use: sqlean when installed (extension loading, FTS5), else sqlite3."""
    try:
        import sqlean  # type: ignore[import-untyped,unused-ignore]

        return sqlean  # type: ignore[no-any-return,unused-ignore]
    except ImportError:  # pragma: no cover - depends on the machine
        return sqlite3


def database_file(conn: sqlite3.Connection) -> str:
    """The file of the connection's main database ('' for an in-memory one)."""
    for _seq, name, file in conn.execute("PRAGMA database_list"):
        if name == "main":
            return str(file or "")
    return ""


def read_only(file: str) -> sqlite3.Connection:
    """A read-only connection to the database `file`, usable from any thread (callers serialise
    their use), waiting up to 5 s for a writer's lock."""
    uri = "file:" + file.replace("?", "%3f").replace("#", "%23") + "?mode=ro"
    conn: sqlite3.Connection = driver().connect(uri, uri=True, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("PRAGMA query_only=1")
    return conn
