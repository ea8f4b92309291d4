"""An error about what the caller gave echoes it bounded, whichever raise site names it.

A 100,000-character heading (read_note, patch_note; as a string or a list) came back whole in the
validation_error's message and again in details.heading (200,000+ characters for one answer), and
so did an unknown argument's name, once per issue; 50,000 unknown arguments were listed one by one.
`service.errors` now cuts the message (start and end kept, the middle an ellipsis), the hint and
every text in details of an error about the caller's input, and the validate layer lists at most
`MAX_ISSUES` field issues (details.issues_total counts them)."""

from __future__ import annotations

import json

from service.dispatch.validate import MAX_ISSUES
from service.errors import ECHO_DETAIL_CHARS, ECHO_MESSAGE_CHARS, ELLIPSIS
from tests.conftest import Harness, snapshot

BIG = "Goal " + "x" * 100_000
BOUND = 2 * ECHO_MESSAGE_CHARS + 4 * ECHO_DETAIL_CHARS  # an answer's size, all texts cut


async def _refused(vg: Harness, tool: str, **args: object) -> dict[str, object]:
    result = await vg.call(tool, **args)
    assert result.is_error and result.structured is not None
    assert len(json.dumps(result.structured)) < BOUND, (tool, len(json.dumps(result.structured)))
    error: dict[str, object] = result.structured["error"]
    assert error["code"] == "validation_error", error
    return error


async def test_a_huge_heading_is_echoed_bounded(vg: Harness) -> None:
    before = snapshot(vg.root)
    for tool, extra in (("read_note", {}), ("patch_note", {"content": "y\n", "position": "append"})):
        for heading in (BIG, [BIG], ["Goals", BIG]):
            error = await _refused(vg, tool, path="Projects/Plan", heading=heading, **extra)
            message = str(error["message"])
            assert message.startswith(("heading 'Goal xxx", "heading 'Goals > Goal xxx")) and ELLIPSIS in message
            assert message.endswith(("in the note: 'Plan', 'Goals', 'Details', 'Risks'", "under 'Goals': 'Details'"))
            details = error["details"]
            assert isinstance(details, dict) and details["reason"] == "not_found"
            shown = details["heading"][-1]
            assert shown == BIG[:ECHO_DETAIL_CHARS] + ELLIPSIS
    assert snapshot(vg.root) == before


async def test_a_huge_or_numerous_unknown_argument_is_echoed_bounded(vg: Harness) -> None:
    error = await _refused(vg, "list_tasks", **{BIG: 1})
    assert "(list_tasks takes: " in str(error["message"])  # the end of the message is kept
    details = error["details"]
    assert isinstance(details, dict)
    assert details["issues"][0]["field"] == BIG[:ECHO_DETAIL_CHARS] + ELLIPSIS
    many = {f"k{i}": i for i in range(50_000)}
    error = await _refused(vg, "list_tasks", **many)
    details = error["details"]
    assert isinstance(details, dict)
    assert len(details["issues"]) == MAX_ISSUES and details["issues_total"] == 50_000
    assert "status" in details["accepted"]


async def test_a_short_argument_is_echoed_whole(vg: Harness) -> None:
    error = await vg.err("read_note", "validation_error", path="Projects/Plan", heading=["Goals", "Nope"])
    assert error["message"] == "heading 'Goals > Nope' not found; headings under 'Goals': 'Details'"
    assert error["details"]["heading"] == ["Goals", "Nope"]
