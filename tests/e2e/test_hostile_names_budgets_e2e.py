"""Over real HTTP with the SDK client (issue 36 items 5 and 9): a folder whose name is not UTF-8
does not keep the file watcher from bringing an external edit to search; a Dataview regular
expression on a starved process answers within the budget it states.

Every wait is bounded; no real time is asserted (the starved process is simulated: see
tests/starved_regex.py)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from service.indexer import watch
from tests.conftest import e2e
from tests.starved_regex import Clock, Starved, clock_fixture  # noqa: F401 - the fixture `clock`

WITHIN = 60.0


def _bad_folder(root: Path) -> None:
    bad = os.path.join(os.fsencode(root), b"Caf\xe9")
    os.makedirs(bad)
    with open(os.path.join(bad, b"r\xe9sum\xe9.md"), "wb") as fh:
        fh.write(b"# R\n\nresumeword\n")


async def test_an_external_edit_beside_a_folder_named_not_utf8_reaches_search(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n\nalpha\n"})
    _bad_folder(root)
    async with e2e(root) as (url, harness), Client(url) as client:
        await harness.indexed()
        watcher = harness.indexer("main")._watcher
        assert watcher is not None
        # In place: with watchfiles after the first watch, from the root, failed on the name (inotify
        # leaves such folders out: no failure; waiting for one spent the whole bound, 60 s a run).
        for _ in range(int(WITHIN / 0.01)):
            if watcher.established.is_set() and (watch.INOTIFY or watcher.restarts):
                break
            await asyncio.sleep(0.01)
        before = watcher.restarts
        for n in range(2):
            (root / f"New{n}.md").write_text(f"# N\n\nnewword{n}\n", encoding="utf-8")
            for _ in range(int(WITHIN / 0.02)):
                found = await client.call_tool("search_text", {"query": f"newword{n}"})
                assert found.structured_content is not None
                if found.structured_content["items"]:
                    break
                await asyncio.sleep(0.02)
            assert [i["path"] for i in found.structured_content["items"]] == [f"New{n}.md"]
        assert watcher.restarts == before <= 1  # seen by the watch, not by a re-reading after a failure
        status = await client.call_tool("index_status", {})
        assert status.structured_content is not None
        assert (status.structured_content["watching"], status.structured_content["health"]) == (True, "healthy")


async def test_a_dataview_regex_on_a_starved_process_answers_within_its_budget(
    make_vault: Callable[..., Path],
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from service.dataview import functions_lists

    pattern = Starved(clock)
    monkeypatch.setattr(functions_lists, "_compile", lambda source: pattern)
    root = make_vault({"A.md": "---\nname: " + "a" * 54 + "\n---\n# A\n"})
    async with e2e(root, search={"regex_max_budget_ms": 10_000}) as (url, harness), Client(url) as client:
        await harness.indexed()
        answer = await client.call_tool(
            "eval_dataview_field", {"path": "A", "field": 'regextest("(a|a)+$", name + "!")'}
        )
        assert answer.is_error and answer.structured_content is not None
        error = answer.structured_content["error"]
        assert (error["code"], error["details"]["limit"]) == ("compute_budget_exceeded", "seconds")
        assert clock.spent <= error["details"]["max_seconds"]  # given the whole 10 s at once, it ran for 40
