"""Migration 0025: an index built before headings in comments stopped counting and a lone CR
started ending a line reads every note again on the next start, so the rows of a note written
by the older reading (a heading inside `%%`, a CR note's missing task) are replaced."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FILES = {
    "Com.md": "# Com\n\n%%\n## Hidden\n%%\n\ntext\n",
    "Mac.md": b"# Mac\r\r- [ ] call\r",
}


async def test_an_index_built_before_reads_every_note_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        assert (await vg.ok("index_status"))["headings"] == 2
        db_path = Path(vg.app.db.path)
    conn = sqlite3.connect(db_path)  # the rows as the older reading wrote them; 0025 not applied
    with conn:
        com = conn.execute("SELECT id FROM notes WHERE path = 'Com.md'").fetchone()[0]
        conn.execute("INSERT INTO headings (note_id, level, text, line) VALUES (?, 2, 'Hidden', 3)", (com,))
        conn.execute("DELETE FROM tasks WHERE note_id = (SELECT id FROM notes WHERE path = 'Mac.md')")
        conn.execute("DELETE FROM schema_migrations WHERE version = 25")
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        assert (await vg.ok("index_status"))["headings"] == 2
        [task] = (await vg.ok("list_tasks", note="Mac"))["items"]
        assert (task["text"], task["line"]) == ("call", 3)
