"""Session 69's note-reading fixes, end to end over HTTP with the SDK client in both eras; each is
tested through the dispatch chain beside its fix.

- A task, list item or block id inside a `%%` or HTML comment is none: list_tasks, Dataview and a
  `note#^id` address leave it out, set_task_status refuses its line; a `%%` in inline code opens
  no comment (tests/tools/notes/test_tasks_and_blocks_in_comments.py).
- An edit of a note mixing LF with lone CRs keeps each untouched line's end
  (tests/tools/notes/test_mixed_line_ends.py).
- A part of a note longer than an answer may hold is read by its lines from the file, never read
  whole, and keeps its lines' own ends; a long note that is not UTF-8 is refused for it
  (tests/tools/notes/test_long_note_parts.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

TASKS = (
    "# T\n\n- [ ] shown ^s\n\n%%\n- [ ] hidden ^h\n%%\n\n<!--\n- [ ] html ^x\n-->\n\n- [ ] `%%` code ^c\n- [ ] last\n"
)
MIXED = b"# M\r## Tasks\r- [ ] one\n- [ ] two\r\n## End\rend\r"
FILLER = "".join(f"filler {i} [[X]]\r" for i in range(600))
BIG = "# Big\n\n## Top\rtop one\r\ntop two ^t\n\n## Filler\n" + FILLER + "## End\nend\n"
FILES = {
    "T.md": TASKS,
    "M.md": MIXED,
    "Big.md": BIG.encode(),
    "Latin.md": ("# L\n## A\ncaf\xe9\n" + FILLER).encode("cp1252"),
}
LIMIT = 8192


async def test_note_reading_fixes_over_http(
    make_vault: Callable[..., Path], mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault(FILES)
    async with e2e(root, governor={"max_response_bytes": LIMIT}) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            tasks = (await ok(c, "list_tasks", note="T"))["items"]
            assert [t["line"] for t in tasks] == [3, 13, 14]
            dql = await ok(c, "search_dql", query='TASK FROM "T"')
            assert dql["total"] == 3
            assert (await ok(c, "read_note", path="T#^c"))["content"] == "- [ ] `%%` code ^c\n"
            for gone in ("h", "x"):
                assert (await error(c, "read_note", path=f"T#^{gone}"))["details"]["reason"] == "not_found"
            refused = await error(c, "set_task_status", path="T", line=6, status="x", expected_text="hidden ^h")
            assert refused["details"]["reason"] == "not_a_task" and h.read("T.md") == TASKS

            await ok(c, "set_task_status", path="M", line=4, status="x", date="2026-12-01", expected_text="two")
            await ok(c, "patch_note", path="M", heading=["M", "End"], content="more\n")
            assert (root / "M.md").read_bytes() == MIXED.replace(
                b"- [ ] two", "- [x] two ✅ 2026-12-01".encode()
            ) + b"\rmore\r"

            files = next(iter(h.app.vaults.values())).files
            monkeypatch.setattr(files, "read", lambda vp: pytest.fail(f"{vp.rel} read whole"))
            top = await ok(c, "read_note", path="Big#Top")
            assert top["content"] == "## Top\rtop one\r\ntop two ^t\n" and (top["start_line"], top["end_line"]) == (
                3,
                5,
            )
            assert (await ok(c, "read_note", path="Big#^t"))["content"] == "top one\r\ntop two ^t\n"
            end = await ok(c, "read_note", path="Big", heading=["Big", "End"])
            assert end["content"] == "## End\nend\n" and end["total_lines"] == BIG.count("\n") + BIG.count("\r") - 1
            assert end["links"] == ["X"] and end["size"] == len(BIG)
            assert (await error(c, "read_note", path="Big#Filler"))["code"] == "overflow"
            assert (await error(c, "read_note", path="Latin#A"))["details"]["reason"] == "not_utf8"
