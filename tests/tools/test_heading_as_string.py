"""A `heading` argument given as one string, through the dispatch chain: every tool taking a
heading path (read_note, patch_note, add_tags, apply_template, append_to_periodic_note) reads
'Goals' as ['Goals'], as a `Note#Goals` address does; each answered validation_error 'Input should
be a valid list' before. The advertised schema stays an array."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

PLAN = "# Plan\n\n## Goals\n\nShip.\n\n## Log\n\nstart\n"
VAULT: dict[str, str | bytes] = {
    "Plan.md": PLAN,
    "Templates/Item.md": "- from the template\n",
    ".obsidian/templates.json": '{"folder": "Templates"}',
    ".obsidian/daily-notes.json": '{"folder": "Daily", "format": "YYYY-MM-DD"}',
    "Daily/2026-12-02.md": "# Day\n\n## Log\n\n- morning\n\n## End\n",
}


@pytest.fixture
async def hv(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(VAULT), index={"watch": False}) as harness:
        await harness.indexed()
        yield harness


async def test_one_heading_as_a_string_is_that_heading(hv: Harness) -> None:
    as_list = await hv.ok("read_note", path="Plan", heading=["Goals"])
    as_text = await hv.ok("read_note", path="Plan", heading="Goals")
    assert as_text["content"] == as_list["content"] == "## Goals\n\nShip.\n"
    await hv.ok("patch_note", path="Plan", heading="Goals", position="append", content="Then grow.")
    await hv.ok("add_tags", path="Plan", tags=["launch"], inline=True, heading="Log")
    await hv.ok("apply_template", template="Item", path="Plan", heading="Log", position="append")
    text = hv.read("Plan.md")
    goals = text.split("## Log")[0]
    assert "Then grow." in goals and "#launch" in text.split("## Log")[1]
    assert "- from the template" in text.split("## Log")[1]
    await hv.ok("append_to_periodic_note", date="2026-12-02", content="- evening", heading="Log")
    day = hv.read("Daily/2026-12-02.md")
    assert day.index("- evening") < day.index("## End")


async def test_the_schema_still_asks_for_a_list_and_other_shapes_are_refused(hv: Harness) -> None:
    schema = (await hv.ok("describe_capability", name="read_note"))["input_schema"]
    assert schema["properties"]["heading"]["type"] == "array"
    error = await hv.err("read_note", "validation_error", path="Plan", heading=3)
    assert error["details"]["issues"][0]["field"] == "heading"
