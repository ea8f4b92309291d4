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
