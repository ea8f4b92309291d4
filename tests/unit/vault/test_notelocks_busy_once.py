"""A write to a note another vaultgate process keeps locked answers `conflict` after one bounded
wait for the lock (C2 s94). The memory store's write and `modify` (a blind append, a task's
status) re-read and retry on a conflict, since a person's save in between is applied to; they
retried on the lock's own conflict too, waiting out the bound again each time: 50 tries of the
2 s wait, ~100 s before the caller heard anything. Through the dispatch chain, the number of
waits that ran out is counted (not timed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.errors import Conflict
from service.vault import notelocks
from tests.conftest import started
from tests.unit.vault.test_notelocks import _held_elsewhere

ANN = "---\ntype: entity\nentityType: person\n---\n# Ann\n\n- seed\n"


@pytest.mark.parametrize(
    ("rel", "tool", "args"),
    [
        ("Memory/Ann.md", "add_observations", {"observations": [{"entityName": "Ann", "contents": ["x"]}]}),
        ("Notes/Plan.md", "write_note", {"path": "Notes/Plan", "content": "- more\n", "mode": "append"}),
    ],
    ids=["memory", "modify"],
)
async def test_a_note_another_process_keeps_locked_is_one_wait_then_conflict(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, rel: str, tool: str, args: dict[str, object]
) -> None:
    root = make_vault({"Memory/Ann.md": ANN, "Notes/Plan.md": "# Plan\n"})
    waits: list[str] = []
    original = notelocks._busy

    def counted(at: str, wait: float) -> Conflict:
        waits.append(at)
        return original(at, wait)

    monkeypatch.setattr(notelocks, "_busy", counted)
    monkeypatch.setattr(notelocks, "WAIT_SECONDS", 0.2)
    async with started(root) as vg:
        before = vg.snapshot()
        with _held_elsewhere(root, rel):
            refused = await vg.err(tool, "conflict", **args)
        assert refused["details"]["reason"] == notelocks.BUSY
        assert waits == [rel], waits  # one wait ran out, not one per retry
        assert vg.snapshot() == before
        await vg.ok(tool, **args)  # released: the same call goes through
