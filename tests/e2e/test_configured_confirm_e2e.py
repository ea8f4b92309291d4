"""Confirmation that configuration adds (`confirmation.tools`, `confirmation.scope_floors`, a vault
in `write_mode = "confirm"`) asks a client that declared elicitation through the client, in both
protocol eras, over real HTTP with the SDK client: the fast path must not answer such a call past
the SDK's session (where nobody can be asked and the answer was `elicit_required`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from tests.conftest import e2e

CONFIGS: dict[str, dict[str, Any]] = {
    "tools": {"confirmation": {"tools": ["append_note"]}},
    "scope_floors": {"confirmation": {"scope_floors": ["write:vault"]}},
}


@pytest.mark.parametrize("config", [*CONFIGS, "write_mode"])
async def test_a_configured_confirmation_asks_through_the_client(
    make_vault: Callable[..., Path], mode: str, config: str
) -> None:
    root = make_vault({"Note.md": "# Note\n"})
    asked: list[str] = []

    async def accept(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    overrides = CONFIGS.get(config) or {"vaults": [{"id": "main", "path": root, "write_mode": "confirm"}]}
    async with e2e(root, **overrides) as (url, _), Client(url, mode=mode, elicitation_callback=accept) as client:
        result = await client.call_tool("append_note", {"path": "Note", "content": "more"})
        assert not result.is_error, result.structured_content
        assert len(asked) == 1
    assert (root / "Note.md").read_text().rstrip().endswith("more")
