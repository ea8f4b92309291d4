"""tests/tools/memory/test_commented_memory_lines.py over HTTP with the SDK client (both eras): a
fact and a relation a person commented out (`%%` … `%%`, `<!--` … `-->`) are not listed by
open_nodes, and a new relation goes into a real `## Relations` section, not into the comment
(before s77: both listed, and the relation was written inside the comment)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_commented_memory_lines import EVE


async def test_commented_memory_lines_are_comments_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    vault = make_vault({"Memory/Eve.md": EVE, "Memory/Ann.md": "---\nname: Ann\n---\n# Ann\n"})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        opened = await ok(c, "open_nodes", names=["Eve"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Likes tea"], opened
        assert opened["relations"] == [], opened
        await ok(c, "create_relations", relations=[{"from": "Eve", "to": "Ann", "relationType": "knows"}])
        text = h.read("Memory/Eve.md")
        assert text.endswith("- knows [[Memory/Old]]\n%%\n\n## Relations\n- knows [[Memory/Ann]]\n"), text
