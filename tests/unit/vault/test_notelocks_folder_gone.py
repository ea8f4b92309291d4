"""The cross-process lock folder removed while the server runs (a cleaner of the data home) is
made again by the next write, which takes the note's lock: before, the folder was made once per
process, so every later write went on unlocked, a warning each (review R3 s63 #11)."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from service.vault import notelocks
from tests.conftest import started
from tests.unit.vault.test_notelocks import _held_elsewhere

NOTE = "---\ntype: entity\nentityType: person\n---\n# Ann\n\n- seed\n"


def _adding(text: str) -> dict[str, object]:
    return {"observations": [{"entityName": "Ann", "contents": [text]}]}


async def test_a_write_after_the_lock_folder_was_removed_takes_the_note_s_lock(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = make_vault({"Memory/Ann.md": NOTE})
    async with started(root) as vg:
        await vg.ok("add_observations", **_adding("first fact"))
        folder = notelocks.lock_folder(str(root))
        assert folder is not None
        slot = Path(folder) / notelocks.slot_of("Memory/Ann.md")
        assert slot.is_file()
        shutil.rmtree(Path(folder).parent)  # the data home's `locks/` cleared while the server runs
        with caplog.at_level(logging.WARNING, logger="vaultgate.vault"):
            await vg.ok("add_observations", **_adding("second fact"))
        assert slot.is_file(), "the lock folder was not made again: the write went on unlocked"
        assert not [r for r in caplog.records if "not taken" in r.getMessage()]
        monkeypatch.setattr(notelocks, "WAIT_SECONDS", 0.2)
        with _held_elsewhere(root, "Memory/Ann.md"):  # the lock file the write takes is the one others take
            await vg.err("add_observations", "conflict", **_adding("third fact"))
        text = (root / "Memory/Ann.md").read_text(encoding="utf-8")
    assert "second fact" in text and "third fact" not in text
