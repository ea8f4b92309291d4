"""open_nodes and read_memory_graph read the entity notes in a worker thread (A4 s95), through the
dispatch chain. Both read and parse every entity note of the memory folder at each call (open_nodes
for the relations to the entities it opens, read_memory_graph to choose a page), and did it on
the event loop: with one 10.7 MB entity note (300,000 observations, what any write token can
write or grow), open_nodes of another, small entity held the loop 4 s and read_memory_graph 16 s,
every other client's call waiting meanwhile."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.vault.files import VaultFiles
from tests.conftest import started

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Lives in Oslo ^m-a\n\n## Relations\n"
BIG = "---\nname: Big\nentityType: topic\n---\n# Big\n\n## Observations\n"
BIG += "".join(f"- fact number {i} of the big one\n" for i in range(3000)) + "\n## Relations\n- knows [[Memory/Ann]]\n"


@pytest.mark.parametrize(("tool", "args"), [("open_nodes", {"names": ["Ann"]}), ("read_memory_graph", {"limit": 1})])
async def test_the_entity_notes_are_read_off_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any]
) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN, "Memory/Big.md": BIG})) as vg:
        on_loop: list[tuple[str, bool]] = []
        real_read = VaultFiles.read

        def recording(self: VaultFiles, vp: Any, *a: Any, **kw: Any) -> Any:
            on_loop.append((vp.rel, threading.current_thread() is threading.main_thread()))
            return real_read(self, vp, *a, **kw)

        monkeypatch.setattr(VaultFiles, "read", recording)
        answer = await vg.ok(tool, **args)
        assert answer["relations"] == [{"from": "Big", "to": "Ann", "relationType": "knows"}] or tool != "open_nodes"
        assert [e["name"] for e in answer["entities"]] == ["Ann"], answer["entities"]
        assert ("Memory/Big.md", False) in on_loop and ("Memory/Big.md", True) not in on_loop, on_loop
