"""An HTML comment block opened in a list item (`- <!--`) hides the item's lines that follow, to
`-->`, as CommonMark reads it (an HTML block starts where the item's text starts, and lives in the
item): a task, list item or block id there is none. The block also ends with its item: a line
indented less than the item's text is out of it (`- <!--` then `- [ ] next` at the margin: the next
item is a task). Before, only a line starting `<!--` (or `> <!--`) opened one, so the tasks under
`- <!--` were listed, read and set. Every reader agrees: list_tasks and tasks_filter (the index),
Dataview TASK and file.lists, read_note and patch_note by block. An index built before reads such
notes again (migration 0031)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started

NOTE = (
    "# L\n\n"  # 0-1
    "- [ ] shown ^s1\n"  # 2
    "- <!--\n  - [ ] hidden under the item ^hid\n  - hidden item\n  -->\n"  # 3-6
    "- [ ] after the comment ^s2\n\n"  # 7-8
    "1. <!-- notes\n- [ ] a new item ends the item and its comment ^s3\n-->\n\n"  # 9-12
    "> - <!--\n>   - [ ] quoted hidden ^qh\n>   -->\n> - [ ] quoted shown ^s4\n\n"  # 13-17
    "* <!-- one line --> text\n  - [ ] under a closed comment ^s5\n"  # 18-19
)
SHOWN = [
    "shown",
    "after the comment",
    "a new item ends the item and its comment",
    "quoted shown",
    "under a closed comment",
]
SHOWN_LINES = [3, 8, 11, 17, 20]  # 1-based
FILES = {"L.md": NOTE}


async def _reads_as_commonmark(vg: Harness) -> None:
    items = (await vg.ok("list_tasks", note="L"))["items"]
    assert [(i["line"], i["text"].split(" ^")[0]) for i in items] == list(zip(SHOWN_LINES, SHOWN, strict=True))
    filtered = await vg.ok("tasks_filter", query="path includes L.md", limit=50)
    assert [i["description"].split(" ^")[0] for i in filtered["items"]] == SHOWN
    assert (await vg.ok("search_dql", query='TASK FROM "L"'))["total"] == len(SHOWN)
    dql = await vg.ok("search_dql", query='TABLE length(file.lists) AS l FROM "L"')
    assert dql["rows"][0]["cells"][0]["value"] == 9  # the 5 tasks, `- <!--`, `1. <!--`, `> - <!--`, `* <!--`
    for shown in ("s1", "s2", "s3", "s4", "s5"):
        assert "- [ ] " in (await vg.ok("read_note", path=f"L#^{shown}"))["content"]
    for gone in ("hid", "qh"):
        error = await vg.err("read_note", "validation_error", path=f"L#^{gone}")
        assert error["details"]["reason"] == "not_found" and gone not in error["details"]["blocks"]


async def test_an_html_comment_opened_in_a_list_item_hides_its_lines(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        await _reads_as_commonmark(vg)
        before = vg.snapshot()
        await vg.err("patch_note", "validation_error", path="L", block="hid", content="x\n")
        await vg.err("set_task_status", "validation_error", path="L", line=5, status="x")
        assert vg.changed_since(before) == set()


async def test_an_index_built_before_reads_those_notes_again(make_vault: Callable[..., Path]) -> None:
    root = make_vault(FILES)
    async with started(root) as vg:
        await vg.indexed()
        db_path = Path(vg.app.db.path)
    conn = sqlite3.connect(db_path)  # the rows as the reading before 0031 wrote them: the hidden task listed
    with conn:
        conn.execute(
            "INSERT INTO tasks (note_id, vault_id, line, status, text) "
            "SELECT note_id, vault_id, 4, ' ', 'hidden under the item ^hid' FROM tasks WHERE line = 2"
        )
        conn.execute("DELETE FROM schema_migrations WHERE version = 31")
    conn.close()
    async with started(root) as vg:
        await vg.indexed()
        await _reads_as_commonmark(vg)
