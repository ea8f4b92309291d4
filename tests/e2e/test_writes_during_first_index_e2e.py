"""Over real HTTP with the SDK client, in both eras: a note created while the first index is being
built (held in the middle, `tests/first_index_gate.py`) is found by the same client's
`search_text`, read by its alias and listed in its link target's backlinks before the index is
ready (`index_status` still says reconciling, search answers `partial`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.first_index_gate import NOTES, FirstIndexGate, vault_files

FRESH = "---\naliases: [Freshly Made]\n---\n# Fresh\n\nzyxquux links to [[Target]]\n"


async def test_a_note_written_during_the_first_index_is_seen_at_once_over_http(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    gate = FirstIndexGate(monkeypatch, at=3)
    async with e2e(make_vault(vault_files())) as (url, harness):
        try:
            await gate.wait_held()
            async with Client(url, mode=mode) as client:  # type: ignore[arg-type]

                async def ok(tool: str, **args: Any) -> dict[str, Any]:
                    result = await client.call_tool(tool, args)
                    assert not result.is_error and result.structured_content is not None, result
                    return result.structured_content

                await ok("create_note", path="Fresh", content=FRESH)
                found = await ok("search_text", query="zyxquux")
                assert [item["path"] for item in found["items"]] == ["Fresh.md"] and found["partial"] is True
                assert (await ok("read_note", path="Freshly Made"))["path"] == "Fresh.md"
                back = await ok("get_backlinks", path="Target")
                assert [item["path"] for item in back["items"]] == ["Fresh.md"]
                status = await ok("index_status")
                assert status["ready"] is False and status["state"] == "reconciling"
        finally:
            gate.release()
        await harness.settled()
        assert (await harness.ok("index_status"))["notes"] == NOTES + 2
