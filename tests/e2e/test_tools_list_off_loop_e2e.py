"""A session's first `tools/list` the SDK answers (a cursor here; other list settings alike) imports
every tool domain and builds each listed tool (R7 s77). It did so on the server's event loop, so
every other request of every session waited for it (~0.6-1 s of CPU; in-process at load 13 the
loop stalled 2.2-3.1 s, and a second client's read_note waited as long). Now it is built in a
worker thread (`service.protocol.tool_lists`): here one domain's import is held until a second
session's `read_note` has been answered, the list asked in either protocol era; before, the held import held the
loop, so the read could only be answered once the hold gave up."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import anyio
import pytest
from mcp import Client

from service.tools import registry
from service.tools.registry import PARTS
from tests.conftest import e2e

HELD = "dataview"  # a part neither client's read loads


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_other_sessions_are_answered_while_a_first_paged_list_imports_the_domains(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    holding, release = threading.Event(), threading.Event()
    released: list[bool] = []  # whether the hold ended because the read was answered (not its time-out)
    real = registry._declared

    def declared(part: str, catalog: registry.Catalog) -> Iterable[registry.ToolSpec]:
        if part == HELD and not holding.is_set():
            holding.set()
            released.append(release.wait(30))
        return real(part, catalog)

    monkeypatch.setattr(registry, "_declared", declared)
    root = make_vault({"Welcome.md": "# Welcome\n"})
    async with e2e(root) as (url, harness), Client(url, mode="legacy") as reader:
        assert (await reader.call_tool("read_note", {"path": "Welcome"})).is_error is False
        assert HELD not in harness.app.registry.loaded_parts()  # the legacy client's list was the shipped one
        listed: list[int] = []
        async with Client(url, mode=mode) as lister:

            async def paged_list() -> None:
                listed.append(len((await lister.list_tools(cursor="0")).tools))

            async with anyio.create_task_group() as tg:
                tg.start_soon(paged_list)
                assert await anyio.to_thread.run_sync(holding.wait, 60)
                read = await reader.call_tool("read_note", {"path": "Welcome"})
                release.set()
        assert read.is_error is False
        assert harness.app.registry.loaded_parts() == PARTS
    assert released == [True] and listed and listed[0] > 0
