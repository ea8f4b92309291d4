"""tests/tools/memory/test_hand_deleted_superseding_fact.py over HTTP with the SDK client (both eras):
a fact whose `superseded_by` names a line a person deleted is answered as current by open_nodes
and search_memory (`service.memory.history`), and the note is left as written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_supersede_by_hand_written import HEAD

NOTE = HEAD + (
    "- Likes tea [superseded_by:: ^gone1] [valid_until:: 2025] ^tea1\n"
    "- Likes jazz [superseded_by:: ^Blues1] [valid_until:: 2024] ^jazz1\n"
    "- Likes blues ^blues1\n"
)


async def test_a_pointer_to_a_deleted_line_reads_as_current_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    vault = make_vault({"Memory/Eve.md": NOTE})
    async with e2e(vault) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        opened = await ok(c, "open_nodes", names=["Eve"])
        facts = {o["text"]: (o["superseded_by"], o["valid_until"]) for o in opened["entities"][0]["observations"]}
        assert facts == {
            "Likes tea": (None, None),  # the pointer names no line: current
            "Likes jazz": ("blues1", "2024"),  # any letter case names the line: history
            "Likes blues": (None, None),
        }
        found = await ok(c, "search_memory", query="What does Eve like? tea jazz blues", limit=10)
        order = [(o["text"], o["superseded_by"]) for o in found["items"]]
        assert order[-1] == ("Likes jazz", "blues1"), order  # history after every current fact
        assert ("Likes tea", None) in order, order
        assert h.read("Memory/Eve.md") == NOTE
