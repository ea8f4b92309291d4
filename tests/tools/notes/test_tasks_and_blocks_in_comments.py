"""A list item, task or block id inside a comment — Obsidian's `%%` … `%%` (on one line or across
lines) or an HTML comment block (a line starting `<!--`, to `-->`) — is none, as headings there
are none (test_headings_in_comments): Obsidian shows nothing there, and its Tasks plugin and
Dataview list no such task. Every reader agrees: list_tasks and tasks_filter (the index), Dataview's
file.tasks / file.lists, read_note and patch_note by block, set_task_status. A `%%` in inline code
or a code fence opens no comment, and a task in a fence is still no task. Before, the commented
tasks were listed and `T#^gone` was read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

NOTE = (
    "# T\n\n"  # 0-1
    "- [ ] open task ^shown\n\n"  # 2-3
    "%%\n- [ ] commented task\n- hidden item\n- [ ] also hidden ^gone\n%%\n\n"  # 4-9
    "<!--\n- [ ] html hidden ^htmlgone\n-->\n\n"  # 10-13
    "- [ ] after `%%` code %%c%% ^after\n"  # 14: the %% in code is no mark: the pair closes
    "- [ ] opens a comment %% ^inopen\n"  # 15: the task shows, its block id is in the comment
    "hidden line ^inopen2\n%%\n\n"  # 16-18
    "```\n%%\n- [ ] fenced\n```\n\n"  # 19-23: no comment opened, no task
    "%% - [ ] inline hidden %%\n\n"  # 24-25
    "- [ ] last ^lastid\n"  # 26
)
SHOWN = ["open task", "after `%%` code %%c%%", "opens a comment %%", "last"]
FILES = {"T.md": NOTE, "L.md": "# L\n\n[[T#^gone]] [[T#^shown]]\n"}


async def _descriptions(vg: Harness, query: str) -> list[str]:
    out = await vg.ok("tasks_filter", query=query, limit=50)
    return [i["description"] for i in out["items"]]


@pytest.mark.covers("list_tasks", "success")
async def test_tasks_and_block_ids_in_comments_are_none(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        items = (await vg.ok("list_tasks", note="T"))["items"]
        assert [(i["line"], i["text"].split(" ^")[0]) for i in items] == list(zip([3, 15, 16, 27], SHOWN, strict=True))
        assert [d.split(" ^")[0] for d in await _descriptions(vg, "path includes T.md")] == SHOWN
        dql = await vg.ok("search_dql", query='TABLE length(file.tasks) AS t, length(file.lists) AS l FROM "T"')
        assert [[c["value"] for c in r["cells"]] for r in dql["rows"]] == [[4, 4]]
        task = await vg.ok("search_dql", query='TASK FROM "T"')
        assert task["total"] == 4
        for shown in ("shown", "after", "lastid"):
            assert (await vg.ok("read_note", path=f"T#^{shown}"))["content"].startswith("- [ ] ")
        assert (await vg.ok("read_note", path="[[T#^shown]]"))["content"] == "- [ ] open task ^shown\n"
        for gone in ("gone", "htmlgone", "inopen", "inopen2"):
            error = await vg.err("read_note", "validation_error", path=f"T#^{gone}")
            assert error["details"]["reason"] == "not_found"
            await vg.err("patch_note", "validation_error", path="T", block=gone, content="x\n")
        before = vg.read("T.md")
        hidden = {6: "commented task", 8: "also hidden ^gone", 12: "html hidden ^htmlgone", 22: "fenced"}
        for line, text in hidden.items():  # 1-based: in %%, in <!--, in a fence
            error = await vg.err(
                "set_task_status", "validation_error", path="T", line=line, status="x", expected_text=text
            )
            assert error["details"].get("reason") == "not_a_task", error
        assert vg.read("T.md") == before
        await vg.ok("set_task_status", path="T", line=27, status="x", date="2026-12-01", expected_text="last ^lastid")
        assert vg.read("T.md") == NOTE.replace("- [ ] last", "- [x] last ✅ 2026-12-01")
