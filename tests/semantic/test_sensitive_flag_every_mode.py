"""One note, one `sensitive` flag, whatever the search mode (s61 F1 #2): a note with a "Finance"
section (a heading in `[search] sensitive_tags`) was flagged by the modes that search by meaning,
whose item is the Finance chunk's note, and not by search_text / search_notes / search_vault's
text modes, whose snippet came from another section. A note is flagged when any of its content
names a health or money topic (a term in its text or properties, a tag, its title or a heading)
or it holds a secret, in every mode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e
from tests.semantic.helpers import VAULT, semantic

NOTES = {
    **VAULT,
    "Home/Renovation.md": (
        "# Renovation\n\nThe kitchen renovation: new tiles, a wider window and oak shelves for the kitchen.\n\n"
        "## Finance\n\nThe builder's invoice and the loan schedule for the kitchen work.\n"
    ),
    "Home/Garden.md": "# Garden\n\nThe kitchen garden: tomatoes, beans and herbs by the kitchen door.\n",
}
QUERY = "kitchen tiles window shelves"
MODES: list[tuple[str, dict[str, Any]]] = [
    ("search_notes", {"mode": "full_text"}),
    ("search_vault", {"mode": "text"}),
    ("search_semantic", {}),
    ("search_hybrid", {}),
    ("search_text", {}),
    ("search_notes", {"mode": "semantic"}),
    ("search_notes", {"mode": "hybrid"}),
    ("search_vault", {"mode": "semantic"}),
    ("search_vault", {"mode": "hybrid"}),
]


async def test_a_note_with_a_finance_section_is_flagged_in_every_mode(make_vault: Callable[..., Path]) -> None:
    async with semantic(make_vault(NOTES)) as h:
        for tool, mode in MODES:
            out = await h.ok(tool, query=QUERY, limit=20, **mode)
            flags = {i["path"]: i.get("sensitive") for i in out["items"] if i["path"].startswith("Home/")}
            assert flags.get("Home/Renovation.md") is True, (tool, mode, out["items"])
            assert flags.get("Home/Garden.md") is False, (tool, mode, flags)
        regex = await h.ok("search_vault", mode="regex", query="/wider window/")
        assert [(i["path"], i["sensitive"]) for i in regex["items"]] == [("Home/Renovation.md", True)]


async def test_over_http_the_text_modes_flag_the_note(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(NOTES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            for tool, args in (("search_text", {}), ("search_notes", {"mode": "full_text"})):
                result = await client.call_tool(tool, {"query": QUERY, **args})
                assert not result.is_error and result.structured_content is not None
                flags = {i["path"]: i["sensitive"] for i in result.structured_content["items"]}
                assert flags["Home/Renovation.md"] is True and flags["Home/Garden.md"] is False, (tool, flags)
