"""A plan's preview foresees what process_capture writes when it files a capture the check finds
pending into a memory entity (A4 s79 item 3): the entity's note with the capture's text as an
observation (`filing.file_observation`'s change: `add_to`, its source the inbox item) and the
inbox with the item marked filed (`mark_item`), so a later move counts the links they then hold
as the run rewrites them. Before, both notes were unforeseen and the move's entry said
`estimate: true`, counting the entity note as the disk held it (without the capture's link).

The two oracles of test_plan_memory_deletes_foreseen.py, through the dispatch chain: the move's
entry is the move's own result, nothing is an estimate, the confirmation's files are the files
changed and undo restores every byte; and the text the check composed for the entity note and the
inbox is the text the run wrote, but for block ids and times. A capture whose id only the run
knows (an earlier step's) stays an estimate: the check cannot read its text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.tools.sessions.plan_host import PlanHost
from tests.conftest import Harness, started
from tests.tools.sessions.test_plan_memory_deletes_foreseen import (
    MEMORY,
    MOVE,
    SOLO,
    checked_and_run,
    composing,
    written_as_composed,
)
from tests.tools.sessions.test_plan_preview_oracle import BIN, LINK, _check


def _filing(capture_id: str, target: str = "Ann", category: str | None = None) -> dict[str, Any]:
    args = {"capture_id": capture_id, "action": "entity", "target": target}
    return {"id": "f", "tool": "process_capture", "args": args | ({"category": category} if category else {})}


TEXTS = {
    "a capture linking the moved note": (f"Ann met Bob at {LINK}", None),
    "with a category, the entity named by its link": (f"Ann plans a trip to {LINK}", "plan"),
    "a capture the entity holds already": ("Likes tea", None),
}


async def _captured(vg: Harness, text: str) -> str:
    return str((await vg.ok("capture", text=text))["id"])


@pytest.mark.parametrize("name", list(TEXTS))
async def test_a_capture_filed_into_an_entity_is_foreseen_by_a_later_move(
    make_vault: Callable[..., Path], name: str
) -> None:
    text, category = TEXTS[name]
    async with started(make_vault(MEMORY)) as vg:
        target = "[[Memory/Ann]]" if category else "Ann"
        filing = _filing(await _captured(vg, text), target, category)
        await vg.indexed()
        await _check(vg, {"goal": name, "steps": [filing, MOVE, BIN]})


@pytest.mark.parametrize("name", list(TEXTS))
async def test_the_filed_texts_the_check_composed_are_what_the_run_wrote(
    make_vault: Callable[..., Path], name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    composed = composing(monkeypatch)
    text, category = TEXTS[name]
    async with started(make_vault(MEMORY)) as vg:
        plan = {"goal": name, "steps": [_filing(await _captured(vg, text), "Ann", category), SOLO]}
        await vg.indexed()
        await checked_and_run(vg, plan)
        assert set(composed) >= {"Memory/Inbox.md", "Memory/Ann.md"}, composed
        written_as_composed(vg, composed)


async def test_a_capture_an_earlier_step_makes_stays_an_estimate(make_vault: Callable[..., Path]) -> None:
    made = {"id": "c", "tool": "capture", "args": {"text": f"Ann met Bob at {LINK}"}}
    plan = {"goal": "g", "steps": [made, _filing("${steps.c.id}"), MOVE]}
    async with started(make_vault(MEMORY)) as vg:
        await vg.indexed()
        checked = await vg.ok("validate_plan", plan=plan)
        assert checked["valid"], checked["problems"]
        assert [m["estimate"] for m in checked["effects"]["files_moved"]] == [True], checked["effects"]


async def test_the_pending_captures_are_read_once_a_check(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three filings (and a foreach of two) read the pending captures with one list_captures, not one
    (of up to five pages) a call: a plan filing a hundred captures would list them a hundred times."""
    asked: list[str] = []
    real = PlanHost.call

    async def call(self: PlanHost, tool: str, args: dict[str, Any]) -> Any:
        asked.append(tool)
        return await real(self, tool, args)

    monkeypatch.setattr(PlanHost, "call", call)
    async with started(make_vault(MEMORY)) as vg:
        ids = [await _captured(vg, f"Ann fact {n}") for n in range(5)]
        steps: list[dict[str, Any]] = [{**_filing(i), "id": f"f{n}"} for n, i in enumerate(ids[:3])]
        each = {"capture_id": "${item}", "action": "entity", "target": "Ann"}
        steps.append({"id": "all", "tool": "process_capture", "foreach": ids[3:], "args": each})
        checked = await vg.ok("validate_plan", plan={"goal": "g", "steps": [*steps, MOVE]})
        assert checked["valid"], checked["problems"]
        assert [m["estimate"] for m in checked["effects"]["files_moved"]] == [False], checked["effects"]
    assert asked.count("list_captures") == 1, asked
