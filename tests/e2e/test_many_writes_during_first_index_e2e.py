"""Over real HTTP with the SDK client, in both eras: `bulk_create_notes` of more notes than one
early round used to take (`service/indexer/early.py`'s EARLY_MAX), made while the first index is
being built (held in the middle, `tests/first_index_gate.py`), is found by the same client's
`search_text`, read by an alias and listed in its link target's backlinks before the index is
ready; it used to wait for the end of the load (minutes at 100k notes)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.indexer.early import EARLY_MAX
from tests.conftest import e2e
from tests.first_index_gate import NOTES, FirstIndexGate, FirstRoundHeld, vault_files

MANY = EARLY_MAX + 8


def new_note(i: int) -> dict[str, str]:
    return {"path": f"Bulk/B{i:02d}", "content": f"---\naliases: [Bulk {i:02d}]\n---\nbulk{i:02d}q see [[Target]]\n"}


async def test_many_notes_written_during_the_first_index_are_seen_at_once_over_http(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    gate = FirstIndexGate(monkeypatch, at=3)
    notes = [new_note(i) for i in range(MANY)]
    last = f"Bulk/B{MANY - 1:02d}.md"
    async with e2e(make_vault(vault_files())) as (url, harness):
        try:
            await gate.wait_held()
            held = FirstRoundHeld(harness.indexer())
            token = await harness.token_for("bulk_create_notes", notes=notes)
            async with Client(url, mode=mode) as client:  # type: ignore[arg-type]

                async def ok(tool: str, **args: Any) -> dict[str, Any]:
                    result = await client.call_tool(tool, args)
                    assert not result.is_error and result.structured_content is not None, result
                    return result.structured_content

                await ok("bulk_create_notes", notes=notes, elicit_token=token)
                held.go.set()
                found = await ok("search_text", query=f"bulk{MANY - 1:02d}q")
                assert max(held.sizes) > EARLY_MAX  # the premise: a round of many paths
                assert [item["path"] for item in found["items"]] == [last] and found["partial"] is True
                assert (await ok("read_note", path=f"Bulk {MANY - 1:02d}"))["path"] == last
                back = await ok("get_backlinks", path="Target", limit=100)
                assert {item["path"] for item in back["items"]} == {f"Bulk/B{i:02d}.md" for i in range(MANY)}
                status = await ok("index_status")
                assert status["ready"] is False and status["state"] == "reconciling"
        finally:
            gate.release()
        await harness.settled()
        assert (await harness.ok("index_status"))["notes"] == NOTES + 1 + MANY
