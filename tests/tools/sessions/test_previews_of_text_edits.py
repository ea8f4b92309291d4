"""A dry-run vault's preview of an edit of part of a note answers what the call answers (s74 P5's
left item): a patch_note of a heading, block or anchor the note lacks, a set_task_status of a line
that holds no task, an add_tags under a missing heading were previewed as a change of the note in
a `write_mode = "dry-run"` vault, while the real call refuses them and a plan's check
(validate_plan) reports the refusal. The preview now runs the same check: the tool's own edit on
the note's text. An edit that succeeds still previews as a change, and nothing is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import snapshot, started

FILES = {
    "Home.md": "# Home\n\n## Goals\n\n- [ ] Ship it\nplain line\n\nA paragraph ^para\n",
    "Other.md": "nothing here\n",
}

REFUSED: list[tuple[str, dict[str, Any]]] = [
    ("patch_note", {"path": "Home", "heading": ["Missing"], "content": "x"}),
    ("patch_note", {"path": "Home#Missing", "content": "x"}),
    ("patch_note", {"path": "Home", "block": "nope", "content": "x"}),
    ("set_task_status", {"path": "Home", "line": 6, "status": "done", "expected_text": "plain line"}),
    ("add_tags", {"path": "Home", "tags": ["t"], "inline": True, "heading": "Missing"}),
]

ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("patch_note", {"path": "Home", "heading": ["Goals"], "content": "x"}),
    ("patch_note", {"path": "Home#Goals", "content": "x"}),
    ("set_task_status", {"path": "Home", "line": 5, "status": "done", "expected_text": "Ship it"}),
    ("add_tags", {"path": "Home", "tags": ["t"], "inline": True, "heading": "Goals"}),
]


@pytest.mark.covers("patch_note", "failure")
@pytest.mark.covers("set_task_status", "failure")
async def test_a_dry_run_preview_of_an_edit_the_note_refuses_answers_the_calls_error(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault(FILES)
    codes: list[str] = []
    reasons: list[str] = []
    async with started(root) as vg:  # what the real calls answer (each refused: nothing changes)
        for tool, args in REFUSED:
            out = await vg.call(tool, **args)
            assert out.is_error and out.structured is not None, (tool, args)
            codes.append(out.structured["error"]["code"])
            reasons.append(out.structured["error"]["details"].get("reason"))
        assert reasons == ["not_found", "not_found", "not_found", "not_a_task", "not_found"]  # the text refuses
        checked = await vg.ok(
            "validate_plan",
            plan={
                "goal": "edit Home",
                "steps": [{"id": f"s{i}", "tool": t, "args": a} for i, (t, a) in enumerate(REFUSED)],
            },
        )
        assert [p["code"] for p in checked["problems"]] == codes  # the plan's check: the same refusals
    before = snapshot(root)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        for (tool, args), code, reason in zip(REFUSED, codes, reasons, strict=True):
            error = await vg.err(tool, code, **args)
            assert error["details"].get("reason") == reason, (tool, error)
        for tool, args in ACCEPTED:
            out = await vg.ok(tool, **args)
            assert out["dry_run"] is True and out["effects"]["files_modified"] == ["Home.md"], (tool, out)
    assert snapshot(root) == before
