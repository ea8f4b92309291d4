"""process_capture's `heading` cannot open a comment or put a control character in the note (A4
s95), through the dispatch chain. A heading the note lacks is written as `## heading` at its end:
`"x %%"` opened an Obsidian comment there, hiding the filed capture and whatever is appended to
the note later (and later filings into it were refused, the note now ending inside a comment);
`"x\\x00y"` wrote a NUL into the note (full-text search lost the rest of it). Now both are
`validation_error` (`comment_marker`, `control_character`, field `heading`), nothing filed, the
capture still pending — in the call, a dry-run vault's preview and a plan's check alike."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

NOTE = "# Plumbing\n\nThe boiler.\n"


@pytest.mark.parametrize(("heading", "reason"), [("x %%", "comment_marker"), ("x\x00y", "control_character")])
@pytest.mark.parametrize("action", ["note", "new_note"])
async def test_a_heading_that_would_hide_or_corrupt_the_note_is_refused(
    make_vault: Callable[..., Path], heading: str, reason: str, action: str
) -> None:
    async with started(make_vault({"Notes/Plumbing.md": NOTE})) as vg:
        cap = await vg.ok("capture", text="Call the plumber")
        target = "Notes/Plumbing.md" if action == "note" else "Notes/New.md"
        args = {"capture_id": cap["id"], "action": action, "target": target, "heading": heading}
        error = await vg.err("process_capture", "validation_error", **args)
        assert (error["details"]["field"], error["details"]["reason"]) == ("heading", reason), error
        assert vg.read("Notes/Plumbing.md") == NOTE and not (vg.root / "Notes/New.md").exists()
        assert [c["status"] for c in (await vg.ok("list_captures"))["items"]] == ["pending"]
        step = {"id": "p", "tool": "process_capture", "args": args}
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [step]})
        assert [p["code"] for p in checked["problems"]] == ["validation_error"], checked


async def test_a_plain_heading_is_filed_under(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Notes/Plumbing.md": NOTE})) as vg:
        cap = await vg.ok("capture", text="Call the plumber")
        args = {"capture_id": cap["id"], "action": "note", "target": "Notes/Plumbing.md", "heading": "To do %% now %%"}
        await vg.ok("process_capture", **args)
        assert vg.read("Notes/Plumbing.md").startswith(NOTE + "\n## To do %% now %%\n\nCall the plumber")
