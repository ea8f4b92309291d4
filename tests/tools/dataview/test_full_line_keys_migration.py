"""An index built before cc18b87b (whole-line `Key:: value` fields as Dataview's full-line key
parser takes them) reads the notes with inline fields again (migration 0045): the prose line
"The C++ std::vector is fast" stored as the field `the-c++-std` is gone, `**Status**:: done` is
`status`, and a field a note really has stays."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FILES = {
    "Code.md": "# Code\n\nStatus:: draft\nThe C++ std::vector is fast\n",
    "Bold.md": "# Bold\n\n**Status**:: done\n",
}


async def test_an_index_built_before_reads_its_inline_fields_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        db_path = Path(vg.app.db.path)
    conn = sqlite3.connect(db_path)  # the facts as the reading before cc18b87b wrote them
    with conn:
        conn.execute(
            "UPDATE dataview_facts SET facts = json_set(facts, '$.f', json(?)) "
            "WHERE note_id = (SELECT id FROM notes WHERE path = 'Code.md')",
            ('[["Status", "draft", 2], ["The C++ std", "vector is fast", 3]]',),
        )
        conn.execute("DELETE FROM schema_migrations WHERE version = 45")
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        status = await vg.ok("search_dql", query="TABLE WITHOUT ID file.name, status SORT file.name ASC")
        cells = [[c["value"] for c in row["cells"]] for row in status["rows"]]
        assert cells == [["Bold", "done"], ["Code", "draft"]], status
    conn = sqlite3.connect(db_path)
    facts = conn.execute(
        "SELECT facts FROM dataview_facts WHERE note_id = (SELECT id FROM notes WHERE path = 'Code.md')"
    ).fetchone()[0]
    conn.close()
    assert "vector is fast" not in facts and "draft" in facts, facts
