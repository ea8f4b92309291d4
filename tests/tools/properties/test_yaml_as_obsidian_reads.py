"""Property values read as Obsidian reads them (YAML 1.2), through the dispatch chain.

Before: a date that does not exist (`due: 2023-02-29`, a leap day in a year without one) made
the YAML library raise, and the note answered no properties at all (`frontmatter_error: invalid
YAML: ValueError`) — its status and tags gone from get_properties, search_properties and
Dataview; a time of day (`start: 10:30`) was read as YAML 1.1's base-60 number 630."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = "---\nstatus: active\ndue: 2023-02-29\nstart: 10:30\nslots: [09:15, 2024-13-01]\ncount: 12\n---\n# Meeting\n"


async def test_an_impossible_date_and_a_time_of_day_are_text_and_the_rest_is_kept(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"Meeting.md": NOTE, "Other.md": "# Other\n"})
    async with started(root) as vg:
        await vg.indexed()
        props = await vg.ok("get_properties", path="Meeting.md")
        assert props["frontmatter_error"] is None
        assert props["properties"] == {
            "status": "active",
            "due": "2023-02-29",
            "start": "10:30",
            "slots": ["09:15", "2024-13-01"],
            "count": 12,
        }
        found = await vg.ok("search_properties", filters=[{"key": "status", "op": "==", "value": "active"}])
        assert [item["path"] for item in found["items"]] == ["Meeting.md"]
        table = await vg.ok("search_dql", query='TABLE start, status FROM "" WHERE status = "active"')
        assert [[cell["value"] for cell in row["cells"]] for row in table["rows"]] == [["10:30", "active"]]
        await vg.ok("set_properties", path="Meeting.md", properties={"status": "done"})
        after = await vg.ok("get_properties", path="Meeting.md")
        assert after["properties"]["status"] == "done" and after["properties"]["start"] == "10:30"
    assert "due: 2023-02-29\nstart: 10:30\n" in (root / "Meeting.md").read_text(encoding="utf-8")


async def test_an_index_built_before_reads_such_notes_again_on_a_warm_restart(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Meeting.md": NOTE, "Other.md": "# Other\n"})
    async with started(root) as vg:
        await vg.indexed()
        db_path = Path(vg.app.db.path)
    # The index as the code before wrote it: the note's frontmatter failed, no properties; 0024 not applied.
    conn = sqlite3.connect(db_path)
    with conn:
        conn.execute(
            "UPDATE notes SET properties = '{}', frontmatter_error = 'invalid YAML: ValueError'"
            " WHERE path = 'Meeting.md'"
        )
        conn.execute("DELETE FROM note_properties WHERE note_id = (SELECT id FROM notes WHERE path = 'Meeting.md')")
        conn.execute("DELETE FROM schema_migrations WHERE version = 24")
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        found = await vg.ok("search_properties", filters=[{"key": "status", "op": "==", "value": "active"}])
        assert [item["path"] for item in found["items"]] == ["Meeting.md"]
        table = await vg.ok("search_dql", query='TABLE start FROM "" WHERE status = "active"')
        assert [[cell["value"] for cell in row["cells"]] for row in table["rows"]] == [["10:30"]]
