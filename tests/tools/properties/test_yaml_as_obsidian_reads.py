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


NUMBERS = "---\nzip: 01234\nweight: 1e3\nmode: 0o17\nbig: " + "9" * 5000 + "\n---\n# Numbers\n\nzebracorn\n"


async def test_numbers_read_as_yaml_1_2_and_an_overlong_one_is_text(make_vault: Callable[..., Path]) -> None:
    """The index (and Dataview) read `zip: 01234` as the octal 668 and `weight: 1e3` as text, where
    get_properties said 1234 and 1000.0; an int of 5,000 digits (past Python's int() limit) made
    read_note, get_properties and set_properties answer internal_error and left the note out of
    the index."""
    root = make_vault({"Numbers.md": NUMBERS})
    async with started(root) as vg:
        await vg.indexed()
        props = (await vg.ok("get_properties", path="Numbers.md"))["properties"]
        assert (props["zip"], props["weight"], props["mode"], props["big"]) == (1234, 1000.0, 15, "9" * 5000)
        table = await vg.ok("search_dql", query='TABLE zip, weight, mode FROM ""')
        assert [[cell["value"] for cell in row["cells"]] for row in table["rows"]] == [[1234, 1000.0, 15]]
        assert (await vg.ok("read_note", path="Numbers.md"))["properties"]["zip"] == 1234
        assert [i["path"] for i in (await vg.ok("search_text", query="zebracorn"))["items"]] == ["Numbers.md"]
        await vg.ok("set_properties", path="Numbers.md", properties={"status": "done"})
    text = (root / "Numbers.md").read_text(encoding="utf-8")
    assert "zip: 01234\n" in text and "9" * 5000 in text and "status: done" in text
