"""The same property link written on consecutive lines is a backlink at each of its lines (review
R2 s64 F4: every one got the first one's line, so get_backlinks showed the first line and its text
three times), through the dispatch chain and over real HTTP with the SDK client."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e, started

REL = '---\nrel:\n  - "[[Hub]]"\n  - "[[Hub|again]]"\n  - "[[Hub]]"\nflow: ["[[Hub]]", "[[Hub]]"]\n---\nBody [[Hub]].\n'
VAULT = {"Hub.md": "# Hub\n", "Rel.md": REL}
EXPECTED = [
    (3, '  - "[[Hub]]"', "rel"),
    (4, '  - "[[Hub|again]]"', "rel"),
    (5, '  - "[[Hub]]"', "rel"),
    (6, 'flow: ["[[Hub]]", "[[Hub]]"]', "flow"),
    (6, 'flow: ["[[Hub]]", "[[Hub]]"]', "flow"),
    (8, "Body [[Hub]].", None),
]


def _lines(items: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(((i["line"], i["text"], i.get("property")) for i in items), key=lambda t: (t[0], t[2] or ""))


async def test_each_repeated_property_link_is_at_its_own_line(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        back = await vg.ok("get_backlinks", path="Hub")
        assert _lines(back["items"]) == EXPECTED


async def test_over_http_each_repeated_property_link_is_at_its_own_line(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, vg), Client(url) as client:
        await vg.indexed()
        back = await client.call_tool("get_backlinks", {"path": "Hub"})
        assert not back.is_error and back.structured_content is not None, back
        assert _lines(back.structured_content["items"]) == EXPECTED
