"""A 2025-era client asked through `elicitation/create` while its call waits: an edit made while
the human decides changes what the call would do, so the call asks again about what it changes
now, and never replaces the edit unseen (real HTTP, the SDK client in `legacy` mode)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from tests.conftest import e2e


async def test_an_edit_made_while_the_human_decides_is_shown_before_it_is_replaced(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({"List.md": "# List\n\n" + "- an item\n" * 20})
    note = root / "List.md"
    asked: list[str] = []

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        if len(asked) == 1:  # another agent's edit lands while the human reads the first question
            note.write_text(note.read_text() + "- added meanwhile\n")
        return types.ElicitResult(action="accept", content={"confirm": True})

    async with e2e(root) as (url, _), Client(url, mode="legacy", elicitation_callback=answer) as client:
        result = await client.call_tool("write_note", {"path": "List", "content": "short\n", "mode": "overwrite"})
        assert not result.is_error, result.structured_content
    assert len(asked) == 2, asked  # asked again: the note the human saw is not the note it replaces
    assert "208 bytes" in asked[0] and "226 bytes" in asked[1], asked
    assert note.read_text() == "short\n"
