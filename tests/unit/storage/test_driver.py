"""The SQLite module every connection comes from (`db.driver`), and what a connection reports."""

from __future__ import annotations

from pathlib import Path

from service.storage.db import Backends, connect, driver


def test_a_connection_reports_the_driver_it_was_opened_with(tmp_path: Path) -> None:
    backends = Backends()
    conn = connect(tmp_path / "d.db", backends)
    try:
        assert backends.driver == driver().__name__ and backends.driver in ("sqlean", "sqlite3")
        assert isinstance(conn, driver().Connection)
    finally:
        conn.close()


def test_none_is_bound_as_null_through_its_registered_adapter(tmp_path: Path) -> None:
    # Registered so that binding None skips the driver's failing `__adapt__`/`__conform__` lookups
    # (~0.9 µs a None in sqlean; a cold load binds millions): the value stored stays NULL.
    module = driver()
    assert (type(None), module.PrepareProtocol) in module.adapters
    conn = connect(tmp_path / "n.db")
    try:
        conn.execute("CREATE TABLE t (a TEXT, b INTEGER NOT NULL DEFAULT 7)")
        conn.executemany("INSERT INTO t(a) VALUES (?)", [(None,), ("x",)])
        assert conn.execute("SELECT typeof(a), a IS NULL, ? IS NULL FROM t", (None,)).fetchall() == [
            ("null", 1, 1),
            ("text", 0, 1),
        ]
    finally:
        conn.close()
