"""create_entities reads the memory notes its name lookups need in a worker thread (review R1 s64
F5): a name with no note of its file name is looked up among the folder's notes
(`service.memory.lookup.note_named`), and a long note whose start is not ASCII is read whole to
decide its encoding; that ran on the event loop for every new name. Now the notes changed since
the last lookup are read off the loop first, and the lookups on the loop find them known."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from service.vault import decoding
from tests.conftest import started

LONG = "---\nname: Zoé Martin\nentityType: person\n---\n## Observations\n" + "- aimé les châteaux\n" * 8000


async def test_a_new_entity_s_name_lookup_reads_no_note_on_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Home.md": "# Home\n", "Memory/zoe-renamed.md": LONG})  # > 64 KiB, accented start
    on_loop: list[bool] = []

    def recording(f: BinaryIO, size: int) -> str:
        on_loop.append(threading.current_thread() is threading.main_thread())
        return decoding.decode_start(f, size)

    for name in ("service.memory.store", "service.memory.lookup"):  # where the lookup reads (before: store)
        try:
            module: Any = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "decode_start"):
            monkeypatch.setattr(module, "decode_start", recording)
    async with started(root) as vg:
        await vg.ok("create_entities", entities=[{"name": "Bob", "entityType": "person", "observations": ["hi"]}])
    assert on_loop and not any(on_loop), on_loop
    assert (root / "Memory/Bob.md").is_file()
