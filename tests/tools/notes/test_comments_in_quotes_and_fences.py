"""Two edges of comments (test_tasks_and_blocks_in_comments) read as Obsidian shows them:

- An HTML comment block inside a blockquote or callout (`> <!--` … `> -->`) hides its lines as
  one at the margin does; it also ends where its quote ends (CommonMark's HTML block lives in the
  quote). Before, only a line *starting* `<!--` opened one, so the quoted tasks and block ids
  were listed, read and set.
- A comment is read to its closing mark: a code fence opened inside `%%` … `%%` or `<!--` … `-->`
  and never closed there ends with the comment. Before, the fence took the closing mark as code,
  so the task after it was no task (and its link no link, not followed by a rename).

Every reader agrees: list_tasks and tasks_filter (the index), Dataview TASK, read_note and
patch_note by block, set_task_status, get_backlinks, rename_note's link rewrite."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

NOTE = (
    "# Q\n\n"  # 0-1
    "- [ ] shown one ^s1\n\n"  # 2-3
    "> <!-- quoted comment\n> - [ ] quoted hidden ^qh\n> -->\n\n"  # 4-7
    "> [!note] Callout\n> <!--\n> - [ ] callout hidden ^ch\n> -->\n> - [ ] callout shown ^cs\n\n"  # 8-13
    "> <!-- left open in the quote\n> - [ ] open hidden ^oh\n\n"  # 14-16: the quote's end ends it
    "- [ ] after the quote ^aq\n\n"  # 17-18
    "%%\n```\n%%\n- [ ] after the comment [[Target]] ^ac\n\n"  # 19-23: the fence ends with the comment
    "<!--\n~~~\n-->\n- [ ] after the html comment ^ah\n\n"  # 24-28
    "```\n%%\n```\n- [ ] after a fence holding a mark ^af\n"  # 29-32: no comment opened in code
)
SHOWN = [
    "shown one",
    "callout shown",
    "after the quote",
    "after the comment [[Target]]",
    "after the html comment",
    "after a fence holding a mark",
]
SHOWN_LINES = [3, 13, 18, 23, 28, 33]  # 1-based
FILES = {"Q.md": NOTE, "Target.md": "# Target\n"}


@pytest.mark.covers("list_tasks", "success")
async def test_quoted_html_comments_and_fences_in_comments_read_as_obsidian_shows_them(
    make_vault: Callable[..., Path],
) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        items = (await vg.ok("list_tasks", note="Q"))["items"]
        assert [(i["line"], i["text"].split(" ^")[0]) for i in items] == list(zip(SHOWN_LINES, SHOWN, strict=True))
        filtered = await vg.ok("tasks_filter", query="path includes Q.md", limit=50)
        assert [i["description"].split(" ^")[0] for i in filtered["items"]] == SHOWN
        assert (await vg.ok("search_dql", query='TASK FROM "Q"'))["total"] == len(SHOWN)
        for shown in ("s1", "cs", "aq", "ac", "ah", "af"):
            assert "- [ ] " in (await vg.ok("read_note", path=f"Q#^{shown}"))["content"]
        for gone in ("qh", "ch", "oh"):
            error = await vg.err("read_note", "validation_error", path=f"Q#^{gone}")
            assert error["details"]["reason"] == "not_found"
            await vg.err("patch_note", "validation_error", path="Q", block=gone, content="x\n")
        before = vg.read("Q.md")
        for line, text in {6: "quoted hidden ^qh", 11: "callout hidden ^ch", 16: "open hidden ^oh"}.items():
            error = await vg.err(
                "set_task_status", "validation_error", path="Q", line=line, status="x", expected_text=text
            )
            assert error["details"].get("reason") == "not_a_task", error
        assert vg.read("Q.md") == before
        await vg.ok(
            "set_task_status", path="Q", line=23, status="x", date="2026-12-02", expected_text=SHOWN[3] + " ^ac"
        )
        assert vg.read("Q.md") == NOTE.replace("- [ ] after the comment", "- [x] after the comment", 1).replace(
            "[[Target]] ^ac", "[[Target]] ✅ 2026-12-02 ^ac"
        )
        backlinks = await vg.ok("get_backlinks", path="Target", limit=10)
        assert [(i["path"], i["line"]) for i in backlinks["items"]] == [("Q.md", 23)]
        await vg.ok("rename_note", path="Target", new_path="Renamed")
        assert "- [x] after the comment [[Renamed]] ✅ 2026-12-02 ^ac" in vg.read("Q.md")
