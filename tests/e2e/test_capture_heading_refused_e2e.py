"""tests/tools/memory/test_capture_heading_refused.py over HTTP with the SDK client (both eras):
process_capture into a note under a new heading holding one `%%` is `validation_error`
(`comment_marker`), the note unchanged and the capture pending; before A4 s95 the heading was
written and hid the filed text and all appended after it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.tools.memory.test_capture_heading_refused import NOTE


async def test_a_heading_opening_a_comment_is_refused_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Notes/Plumbing.md": NOTE})) as (url, h), Client(url, mode=mode) as c:
        cap = await ok(c, "capture", text="Call the plumber")
        args = {"capture_id": cap["id"], "action": "note", "target": "Notes/Plumbing.md", "heading": "x %%"}
        refused = await error(c, "process_capture", args)
        assert (refused["code"], refused["details"]["reason"]) == ("validation_error", "comment_marker")
        assert h.read("Notes/Plumbing.md") == NOTE
        assert [i["status"] for i in (await ok(c, "list_captures"))["items"]] == ["pending"]
