"""Concurrent overwrites of a note that is not there yet, through the chain (write_note and
create_note with if_exists=overwrite): the confirm layer lets each through unasked (nothing to
lose when it looks), so each must still find nothing to lose when it writes — one creates the
note, the others answer conflict or elicit_required, and the creator's text is never replaced
without an etag or a human's confirmation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.conftest import Harness


@pytest.mark.parametrize(
    ("tool", "extra"), [("write_note", {"mode": "overwrite"}), ("create_note", {"if_exists": "overwrite"})]
)
async def test_concurrent_overwrites_of_a_new_note_never_replace_the_created_one(
    vg: Harness, tool: str, extra: dict[str, Any]
) -> None:
    for k in range(4):
        path = f"Race/{tool}{k}.md"
        calls = [vg.call(tool, path=path, content=f"text {i}\n", **extra) for i in range(6)]
        results = await asyncio.gather(*calls)
        wins = [i for i, r in enumerate(results) if not r.is_error]
        assert len(wins) == 1, [r.structured for r in results]
        codes = {r.structured["error"]["code"] for r in results if r.is_error and r.structured}
        assert codes <= {"conflict", "elicit_required"}, codes
        assert vg.read(path).endswith(f"text {wins[0]}\n")  # the creator's note, not replaced
        await vg.err(tool, "elicit_required", path=path, content="later\n", **extra)  # as a sequential replace


async def test_an_empty_note_is_still_replaced_unasked(vg: Harness) -> None:
    await vg.ok("write_note", path="Race/empty", content="")
    await vg.ok("write_note", path="Race/empty", content="now\n", mode="overwrite")
    assert vg.read("Race/empty.md") == "now\n"
