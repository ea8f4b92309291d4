"""tests/tools/memory/test_memory_reads_off_loop.py over HTTP with the SDK client: while one
client's open_nodes is reading an entity note, another client's call is answered. The read of the
big note is held until the other answer arrives (bounded): before A4 s95 it was read on the event
loop, so the other call could not be answered until the hold gave up."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from service.vault.files import VaultFiles
from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_memory_reads_off_loop import ANN, BIG


async def test_a_call_is_answered_while_open_nodes_reads_the_memory(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    reading, answered = threading.Event(), threading.Event()
    held: list[bool] = []
    real_read = VaultFiles.read

    def holding(self: VaultFiles, vp: Any, *a: Any, **kw: Any) -> Any:
        if vp.rel == "Memory/Big.md" and not reading.is_set():
            reading.set()
            held.append(answered.wait(20))  # True: the other call was answered meanwhile
        return real_read(self, vp, *a, **kw)

    vault = make_vault({"Memory/Ann.md": ANN, "Memory/Big.md": BIG, "Home.md": "# Home\n"})
    async with e2e(vault) as (url, _), Client(url) as first, Client(url) as second:
        monkeypatch.setattr(VaultFiles, "read", holding)
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                opened: list[dict[str, Any]] = []

                async def open_ann() -> None:
                    opened.append(await ok(first, "open_nodes", names=["Ann"]))

                tg.start_soon(open_ann)
                assert await anyio.to_thread.run_sync(reading.wait, 20)
                await ok(second, "read_note", path="Home.md")
                answered.set()
        assert held == [True]
        assert opened[0]["relations"] == [{"from": "Big", "to": "Ann", "relationType": "knows"}]
