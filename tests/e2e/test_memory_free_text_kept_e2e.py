"""tests/tools/memory/test_memory_writes_keep_free_text.py over HTTP with the SDK client (both
eras): a person's two paragraphs under `## Relations` stay two after add_observations and
create_relations (before s77 the blank line between them was dropped: one paragraph), and a
callout, a code block and a sub heading under `## Observations` stay where they were."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

ANN = (
    "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Likes tea ^m-1\n\n"
    "> [!note] Mine\n> a callout\n\n```\n- code, not a fact\n\n```\n\n## Relations\n\n"
    "First para.\n\nSecond para.\n\n### Later\n\nText.\n"
)


async def test_memory_writes_keep_a_persons_text_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    vault = make_vault({"Memory/Ann.md": ANN, "Memory/Bob.md": "---\nname: Bob\n---\n# Bob\n"})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await ok(c, "add_observations", observations=[{"entityName": "Ann", "contents": ["Plays chess"]}])
        await ok(c, "create_relations", relations=[{"from": "Ann", "to": "Bob", "relationType": "knows"}])
        text = h.read("Memory/Ann.md")
        body = text.split("---\n", 2)[2]
        assert body.startswith("# Ann\n\n## Observations\n- Likes tea ^m-1\n- Plays chess "), text
        kept = "\n\n> [!note] Mine\n> a callout\n\n```\n- code, not a fact\n\n```\n\n## Relations\n\nFirst para.\n\n"
        assert kept in body and body.endswith("Second para.\n\n- knows [[Memory/Bob]]\n\n### Later\n\nText.\n"), text
        opened = await ok(c, "open_nodes", names=["Ann"])
        assert [o["text"] for o in opened["entities"][0]["observations"]] == ["Likes tea", "Plays chess"]
