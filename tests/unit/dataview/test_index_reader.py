"""The Dataview pages' own read-only connection to the index file is made by the index's SQLite
library, never by a second copy of SQLite in the process: POSIX locks belong to the process, so
closing a handle of the other library on the same file dropped the index connections' locks,
and a connection opened next could reset the shared WAL index under readers still mapping it
(a full test run died of SIGBUS in a reader). It reads what the index's writer committed, and
a closed reader opens again on its next read."""

from __future__ import annotations

from pathlib import Path

from service.dataview.reads import IndexReader
from service.storage.db import connect, driver
from service.storage.migrate import _apply_all, load_migrations


def test_the_reader_uses_the_index_library_and_sees_committed_rows(tmp_path: Path) -> None:
    writer = connect(tmp_path / "cache.db")
    _apply_all(writer, load_migrations())
    writer.execute(
        "INSERT INTO notes (id, vault_id, path, folder, name, title, mtime, size, etag, indexed_at, properties)"
        " VALUES (1, 'v', 'a.md', '', 'a', 'a', 0, 1, 'e', 0, '{\"status\": \"active\"}')"
    )
    reader = IndexReader(writer, "v")
    try:
        assert reader.props("a.md") == {"status": "active"}
        conn = reader._connection()
        assert isinstance(conn, driver().Connection), type(conn)
        writer.execute('UPDATE notes SET properties = \'{"status": "done"}\' WHERE id = 1')
        assert reader.props("a.md") == {"status": "done"}
        reader.close()
        assert reader.props("a.md") == {"status": "done"}  # opened again
    finally:
        reader.close()
        writer.close()
