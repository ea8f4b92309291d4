"""Migration 0027: an index built before HTML comments in quotes hid their tasks, and before a
fence opened in a comment ended with it, reads every note again on the next start, so the rows the
older reading wrote (a task inside `> <!--`, a task after `%%` ``` `%%` missing) are replaced."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FILES = {"Q.md": "# Q\n\n- [ ] shown\n\n> <!--\n> - [ ] hidden ^gone\n> -->\n\n%%\n```\n%%\n- [ ] after\n"}


async def test_an_index_built_before_reads_every_note_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        assert [t["text"] for t in (await vg.ok("list_tasks", note="Q"))["items"]] == ["shown", "after"]
        db_path = Path(vg.app.db.path)
    conn = sqlite3.connect(db_path)  # the rows as the older reading wrote them; 0027 not applied
    with conn:
        conn.execute("DELETE FROM tasks WHERE text = 'after'")
        conn.execute(
            "INSERT INTO tasks (note_id, vault_id, line, status, text) "
            "SELECT note_id, vault_id, 5, ' ', 'hidden ^gone' FROM tasks WHERE text = 'shown'"
        )
        conn.execute("INSERT INTO blocks (note_id, block_id, line) SELECT id, 'gone', 5 FROM notes WHERE path = 'Q.md'")
        conn.execute("DELETE FROM schema_migrations WHERE version = 27")
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        assert [t["text"] for t in (await vg.ok("list_tasks", note="Q"))["items"]] == ["shown", "after"]
    conn = sqlite3.connect(db_path)
    with conn:
        assert conn.execute("SELECT count(*) FROM blocks").fetchone()[0] == 0
    conn.close()
