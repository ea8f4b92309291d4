"""tests/tools/memory/test_recall_reads_off_loop.py over HTTP with the SDK client: while one
client's search_memory parses a long entity note that changed, another client's call is answered.
The parse is held until the other answer arrives (bounded): before A4 s95 it ran on the event
loop, so the other call could not be answered until the hold gave up."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from service.memory import recall
from service.memory.model import parse
from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_recall_reads_off_loop import ANN, BIG


async def test_a_call_is_answered_while_search_memory_parses_a_long_note(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    parsing, answered = threading.Event(), threading.Event()
    held: list[bool] = []
    real = parse  # what recall parses a note with

    def holding(text: str, *args: Any) -> Any:
        if "Moved to Bergen" in text and not parsing.is_set():
            parsing.set()
            held.append(answered.wait(20))  # True: the other call was answered meanwhile
        return real(text, *args)

    vault = make_vault({"Memory/Ann.md": ANN, "Memory/Big.md": BIG, "Home.md": "# Home\n"})
    async with e2e(vault) as (url, _), Client(url) as first, Client(url) as second:
        await ok(first, "search_memory", query="Oslo")
        await ok(first, "add_observations", observations=[{"entityName": "Big", "contents": ["Moved to Bergen"]}])
        monkeypatch.setattr(recall, "parse", holding)
        found: list[dict[str, Any]] = []
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:

                async def search() -> None:
                    found.append(await ok(first, "search_memory", query="Bergen"))

                tg.start_soon(search)
                assert await anyio.to_thread.run_sync(parsing.wait, 20)
                await ok(second, "read_note", path="Home.md")
                answered.set()
        assert held == [True]
        assert found[0]["items"][0]["text"] == "Moved to Bergen"
