"""A plan's check looks entity names up in the app's cache
(`EntityWrites.names`, as the memory tools do), not in a cache of its own read afresh for each
check: with 3,000 entity notes a check naming an entity not at its file name read the start of
every note of the memory folder each time (181-207 ms of CPU against 24-41 ms shared; A3 s78).
The answers stay the same: the cached names are checked against each file's mtime and size, and
the caller's ACL applies at each lookup. Through the dispatch chain."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.memory import lookup
from tests.conftest import started
from tests.tools.sessions.test_plan_memory_entities_found import ANN, BOSS

FILES = {"Welcome.md": "# Welcome\n", "Memory/Ann.md": ANN, "Memory/Boss.md": BOSS}  # Boss.md is "Chief"
PLAN = {
    "goal": "g",
    "steps": [
        {"id": "m", "tool": "add_observations", "args": {"observations": [{"entityName": "Chief", "contents": ["x"]}]}}
    ],
}


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The entity notes whose start is read for their names, as they are read."""
    read: list[str] = []
    head = lookup._head

    def counted(fd: int, name: str) -> str:
        read.append(name)
        return head(fd, name)

    monkeypatch.setattr(lookup, "_head", counted)
    return read


async def test_a_plan_check_reads_each_name_once_for_the_app(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault(FILES)) as vg:
        read = _counted(monkeypatch)
        assert (await vg.ok("validate_plan", plan=PLAN))["valid"] is True
        assert read and len(vg.app.services.memory_writes.names) >= 2
        read.clear()
        assert (await vg.ok("validate_plan", plan=PLAN))["valid"] is True
        assert read == []  # every name known, each file unchanged: nothing read again
        (vg.root / "Memory/Boss.md").write_text(BOSS.replace("Chief", "Head"), encoding="utf-8")
        changed = await vg.ok("validate_plan", plan=PLAN)  # the file changed: read again, not served stale
        assert changed["valid"] is False, changed
        assert [Path(p).name for p in read] == ["Boss.md"] * len(read) and read
