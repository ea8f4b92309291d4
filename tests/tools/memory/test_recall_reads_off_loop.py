"""search_memory reads a long entity note that changed in a worker thread (A4 s95), through the
dispatch chain. The recall index re-reads the notes whose stat changed at the next query, and did
it on the event loop: with one 10.7 MB entity note, the first search after each change to it (one
observation added by any agent) held the loop 20 s, every other client's call waiting."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.memory import recall
from service.memory.model import parse
from tests.conftest import started

ANN = "---\nname: Ann\nentityType: person\n---\n# Ann\n\n## Observations\n- Lives in Oslo ^m-a\n"
BIG = "---\nname: Big\nentityType: topic\n---\n# Big\n\n## Observations\n"
BIG += "".join(f"- fact number {i} of the big one\n" for i in range(3000))


async def test_a_long_changed_note_is_parsed_off_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault({"Memory/Ann.md": ANN, "Memory/Big.md": BIG})) as vg:
        assert (await vg.ok("search_memory", query="Oslo"))["items"][0]["entity"] == "Ann"
        await vg.ok("add_observations", observations=[{"entityName": "Big", "contents": ["Moved to Bergen"]}])
        on_loop: list[tuple[str, bool]] = []
        real = parse  # what recall parses a note with

        def recording(text: str, *args: Any) -> Any:
            entity = real(text, *args)
            on_loop.append((entity.name, threading.current_thread() is threading.main_thread()))
            return entity

        monkeypatch.setattr(recall, "parse", recording)
        found = await vg.ok("search_memory", query="Bergen")
        assert (found["items"][0]["entity"], found["items"][0]["text"]) == ("Big", "Moved to Bergen"), found
        assert on_loop == [("Big", False)], on_loop
