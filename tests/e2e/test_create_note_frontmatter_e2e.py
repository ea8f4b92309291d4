"""E2E (both eras, SDK client over real HTTP): create_note's frontmatter is written as Obsidian
writes properties (`  - item`, double quotes only where needed, literal blocks), reads back as
given through get_properties, and a set_properties changes only its own line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.notes.test_create_note_frontmatter_as_obsidian import GIVEN, OBSIDIAN


async def test_create_note_frontmatter_as_obsidian(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Kyoto.md": "# Kyoto\n"})
    async with e2e(root) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await ok(client, "create_note", path="Trips/Trip", content="# Trip\n", frontmatter=GIVEN)
        assert (root / "Trips/Trip.md").read_text(encoding="utf-8") == OBSIDIAN
        assert (await ok(client, "get_properties", path="Trip"))["properties"] == GIVEN
        await ok(client, "set_properties", path="Trip", properties={"count": 4})
        assert (root / "Trips/Trip.md").read_text(encoding="utf-8") == OBSIDIAN.replace("count: 3\n", "count: 4\n")
