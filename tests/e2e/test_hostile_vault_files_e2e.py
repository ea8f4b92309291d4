"""Vault files a sync tool, an old editor or a hostile share leaves behind, end to end: a real
server over HTTP, the SDK client in both protocol eras. Each once failed a call (or the whole
vault's listings) or read wrong: symlinks round a loop (list_notes: io_error), a workspace.json
and a canvas nested 5,000 deep (internal_error), a leap day in a year without one (no properties
at all), `10:30` (read as 630), frontmatter nested 2,000 deep (RecursionError after seconds), a
note with CR-only line ends (a second frontmatter block written in front of its own; now its own
block is read and edited, its CR line ends kept)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from service.errors import ValidationFailed
from tests.conftest import e2e
from tests.e2e.calls import error, ok

DEEP_JSON = '{"a":' * 5000 + "1" + "}" * 5000
MAC = b"---\rtitle: cr\r---\r# A\r"
FILES: dict[str, str | bytes] = {
    "Home.md": "# Home\n",
    "Meeting.md": "---\nstatus: active\ndue: 2023-02-29\nstart: 10:30\n---\n# Meeting\n",
    "Deep.md": "---\na: " + "[" * 2000 + "]" * 2000 + "\n---\n# Deep\n",
    "Mac.md": MAC,
    "Board.canvas": DEEP_JSON,
    ".obsidian/workspace.json": DEEP_JSON,
}


async def test_hostile_vault_files_answer_structured_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(FILES)
    os.symlink("loop.md", root / "loop.md")
    os.symlink("Loopdir", root / "Loopdir")
    async with e2e(root) as (url, vg), Client(url, mode=mode) as c:
        await vg.indexed()
        listed = await ok(c, "list_notes", limit=50)
        assert [i["path"] for i in listed["items"]] == ["Deep.md", "Home.md", "Mac.md", "Meeting.md"]
        assert (await ok(c, "get_workspace"))["found"] is False
        broken = await error(c, "read_canvas", path="Board.canvas")
        assert broken["details"]["reason"] == "invalid_json"
        assert broken["hint"] != ValidationFailed.default_hint  # the file is broken, not the call's arguments
        props = await ok(c, "get_properties", path="Meeting.md")
        assert props["properties"] == {"status": "active", "due": "2023-02-29", "start": "10:30"}
        deep = await ok(c, "get_properties", path="Deep.md")
        assert "nested deeper than YAML is read" in deep["frontmatter_error"]
        # a CR-only note's one frontmatter block is read and edited, its CR line ends kept (eb3208e)
        assert (await ok(c, "get_properties", path="Mac.md"))["properties"] == {"title": "cr"}
        await ok(c, "set_properties", path="Mac.md", properties={"k": "v"})
    assert (root / "Mac.md").read_bytes() == b"---\rtitle: cr\rk: v\r---\r# A\r"


async def test_a_cr_before_a_crlf_is_a_line_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    """`a\\r\\r\\n` in a CRLF note is two lines (the CR alone ends one): set_task_status on the line
    list_tasks gives for `b` ticks `b` (it ticked `c` below it, and dropped the CR, which is kept)."""
    root = make_vault({"T.md": b"- [ ] a\r\r\n- [ ] b\r\n- [ ] c\r\n"})
    async with e2e(root) as (url, vg), Client(url, mode=mode) as c:
        await vg.indexed()
        items = (await ok(c, "list_tasks"))["items"]
        line = next(i["line"] for i in items if i["description"] == "b")
        etag = (await ok(c, "read_note", path="T.md"))["etag"]
        await ok(c, "set_task_status", path="T.md", line=line, status="x", expected_etag=etag, date="2026-12-01")
        assert (root / "T.md").read_bytes() == "- [ ] a\r\r\n- [x] b ✅ 2026-12-01\r\n- [ ] c\r\n".encode()
