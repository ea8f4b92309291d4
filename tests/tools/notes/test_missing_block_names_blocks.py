"""A read or edit of a block id the note does not have (`Note#^nope`, `[[Note#^nope]]`, patch_note's
block) names the note's block ids, as a missing heading names the headings: details.blocks (in
note order, bounded), details.blocks_total, details.suggestions (the closest ids first) and the
first ids in the message, so an agent can correct the call. Before, the error said only
"block ^nope not found". The same from a note read by its lines (longer than an answer may hold)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = (
    "# Launch\n\nThe goal of the launch. ^goal-para\n\n- [ ] book venue ^venue\n- send invites ^invites\n\n"
    "%% hidden ^commented %%\n\n```\nin code ^fenced\n```\n\nLast words. ^summary-2026\n"
)
IDS = ["goal-para", "venue", "invites", "summary-2026"]
MANY = "# Many\n\n" + "".join(f"para {i} ^p{i:04d}\n\n" for i in range(450))
FILES = {"Launch.md": NOTE, "Many.md": MANY, "Plain.md": "# Plain\n\nno ids here\n"}


async def test_a_missing_block_names_the_block_ids_of_the_note(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for path in ("Launch#^goal-pra", "[[Launch#^goal-pra]]", "Launch.md#^goal-pra"):
            error = await vg.err("read_note", "validation_error", path=path)
            details = error["details"]
            assert (details["reason"], details["block"]) == ("not_found", "goal-pra"), path
            assert details["blocks"] == IDS and details["blocks_total"] == 4
            assert details["suggestions"][0] == "goal-para"
            assert "^goal-para" in error["message"] and "^venue" in error["message"] and error["hint"]
        fixed = await vg.ok("read_note", path=f"Launch#^{details['suggestions'][0]}")
        assert fixed["content"] == "The goal of the launch. ^goal-para\n"
        error = await vg.err("read_note", "validation_error", path="Launch#^Venue")
        assert error["details"]["suggestions"][0] == "venue"
        before = vg.snapshot()
        error = await vg.err("patch_note", "validation_error", path="Launch", block="invite", content="x\n")
        assert error["details"]["blocks"] == IDS and error["details"]["suggestions"][0] == "invites"
        assert vg.changed_since(before) == set()
        error = await vg.err("read_note", "validation_error", path="Plain#^nope")
        assert (error["details"]["blocks"], error["details"]["blocks_total"], error["details"]["suggestions"]) == (
            [],
            0,
            [],
        )
        assert "none" in error["message"] and error["hint"]
        error = await vg.err("read_note", "validation_error", path="Many#^p0449x")
        details = error["details"]
        assert details["blocks_total"] == 450 and details["blocks"] == [f"p{i:04d}" for i in range(200)]
        assert len(details["suggestions"]) <= 5 and len(error["message"]) < 1000


async def test_a_missing_block_of_a_note_read_by_its_lines_names_them_too(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES), governor={"max_response_bytes": 4096}) as vg:
        await vg.indexed()
        error = await vg.err("read_note", "validation_error", path="Many#^p0449x")
        details = error["details"]
        assert details["blocks_total"] == 450 and details["blocks"] == [f"p{i:04d}" for i in range(200)]
        assert details["suggestions"] and len(details["suggestions"]) <= 5
