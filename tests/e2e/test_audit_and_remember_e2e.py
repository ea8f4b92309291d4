"""Over real HTTP with the SDK client (both protocol eras): the audit counts no link text as an
unlinked mention and lists no template note as an orphan (6996b4e4,
tests/tools/plane/test_audit_links_and_templates.py); find_capability ranks memory_store first
for 'remember that ...' and delete_observations for 'forget that ...' (b00a1aa4,
tests/tools/facade/test_capability_ranking.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

VAULT = {
    "Categories/Evergreen.md": "# Evergreen\n\nThe category. [[Linked]]\n",
    "Linked.md": "# Linked\n\nAbout [[Categories/Evergreen]].\n",
    "Other.md": "# Other\n\nAbout [[Categories/Evergreen]].\n",
    "Only link.md": "# Only link\n\n[[Evergreen notes]]\n",
    "Prose.md": "# Prose\n\nEvergreen ideas grow. [[Evergreen notes]]\n",
    "Templates/Stock Trade Template.md": "# {{title}}\n\nBought on {{date}}.\n",
    "Lonely.md": "# Lonely\n\nNobody links here.\n",
    ".obsidian/templates.json": json.dumps({"folder": "Templates"}),
}


async def test_audit_and_remember(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(VAULT)
    async with e2e(root) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        for query, tool in (
            ("remember that Bob likes tea", "memory_store"),
            ("forget that Bob likes tea", "delete_observations"),
        ):
            found = await ok(client, "find_capability", query=query, limit=3)
            assert found["items"][0]["name"] == tool, (query, found["items"])
        await ok(client, "reindex")
        await ok(client, "run_consolidation", jobs=["audit"], wait=True)
        items = (await ok(client, "list_findings", limit=500))["items"]
    mentions = {(i["detail"]["path"], i["detail"]["target"]) for i in items if i["kind"] == "unlinked_mention"}
    orphans = {i["detail"]["path"] for i in items if i["kind"] == "orphan"}
    assert ("Prose.md", "Categories/Evergreen.md") in mentions
    assert ("Only link.md", "Categories/Evergreen.md") not in mentions
    assert "Lonely.md" in orphans and "Templates/Stock Trade Template.md" not in orphans
