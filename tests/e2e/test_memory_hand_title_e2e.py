"""A memory write keeps a hand-made entity note's title, or its having none, over real HTTP with
the SDK client (both protocol eras); see tests/tools/memory/test_hand_title_kept.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

VAULT = {
    "Memory/Ann.md": "---\nname: Ann\nentityType: person\n---\n# Ann — my colleague\n\n## Observations\n- Likes tea\n",
    "Memory/Bea.md": "---\nentityType: person\n---\nNo title here.\n\n## Observations\n- Likes coffee\n",
}


async def test_memory_writes_keep_a_hand_made_notes_title(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(VAULT)
    async with e2e(root) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        adds = [{"entityName": "Ann", "contents": ["Plays chess"]}, {"entityName": "Bea", "contents": ["Plays go"]}]
        await ok(client, "add_observations", observations=adds)
        ann = (root / "Memory/Ann.md").read_text(encoding="utf-8")
        bea = (root / "Memory/Bea.md").read_text(encoding="utf-8")
    assert "\n# Ann — my colleague\n\n## Observations\n- Likes tea\n- Plays chess " in ann
    assert bea.split("---\n", 2)[2].startswith("No title here.\n\n## Observations\n- Likes coffee\n- Plays go ")
