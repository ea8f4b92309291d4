"""A long note's bytes are read in a worker thread by the read-modify-write of a note edit
(`VaultFiles.modify`: append_note, set_task_status, set_properties, patch_note …) and by
copy_note (review R4 s63 F4): ba12579 moved the decode, change and encode off the event loop,
but the read itself stayed on it, whatever the note's size (a 101 MB note in the page cache:
44-52 ms per read, repeated on a re-read). Past `offloop.OFF_LOOP_CHARS` bytes on disk the read
runs in a worker thread; a short note is read inline.

Through the dispatch chain: the thread each read runs in is recorded, no timings. The app runs
on the test's main thread, so "off the loop" is "not the main thread".
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.vault.files import VaultFiles
from service.vault.offloop import OFF_LOOP_CHARS
from tests.conftest import started

WITHIN = 60.0
LONG = "# Top\n" + "".join(f"- [ ] task {i} with plain words\n" for i in range(4_000)) + "last line\n"  # ~120 KB
SHORT = "# Top\n- [ ] task 0 with plain words\nlast line\n"


async def _threads(make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, text: str) -> dict[str, set[str]]:
    """The threads `VaultFiles` read N.md's bytes in, per tool."""
    seen: dict[str, set[str]] = {}
    tool = [""]

    def recording(name: str) -> None:
        real: Callable[..., Any] = getattr(VaultFiles, name)

        def recorded(self: VaultFiles, vp: Any, *args: Any, **kwargs: Any) -> Any:
            if vp.rel == "N.md":
                seen.setdefault(tool[0], set()).add(threading.current_thread().name)
            return real(self, vp, *args, **kwargs)

        monkeypatch.setattr(VaultFiles, name, recorded)

    recording("_read_raw")  # modify's read
    recording("read_bytes")  # copy's read
    root = make_vault({"N.md": text})
    async with started(root) as vg:
        await vg.indexed(WITHIN)
        calls: list[tuple[str, dict[str, Any]]] = [
            ("append_note", {"content": "appended\n"}),
            ("set_task_status", {"line": 2, "status": "x", "expected_text": "task 0 with plain words"}),
            ("set_properties", {"properties": {"status": "done"}}),
            ("patch_note", {"anchor": "last line", "position": "replace", "content": "final line"}),
            ("copy_note", {"new_path": "Copy"}),
        ]
        for name, args in calls:
            tool[0] = name
            await vg.ok(name, path="N", **args)
    after = (root / "N.md").read_text(encoding="utf-8")
    assert after.startswith("---\nstatus: done\n---\n# Top\n- [x] task 0") and "final line\nappended\n" in after
    assert (root / "Copy.md").read_text(encoding="utf-8") == after
    return seen


async def test_a_long_notes_bytes_are_read_off_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(LONG) > OFF_LOOP_CHARS
    seen = await _threads(make_vault, monkeypatch, LONG)
    main = threading.main_thread().name
    assert set(seen) == {"append_note", "set_task_status", "set_properties", "patch_note", "copy_note"}
    assert {name: main in threads for name, threads in seen.items()} == {name: False for name in seen}


async def test_a_short_notes_bytes_are_read_on_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = await _threads(make_vault, monkeypatch, SHORT)
    main = threading.main_thread().name
    assert set(seen) == {"append_note", "set_task_status", "set_properties", "patch_note", "copy_note"}
    assert seen == {name: {main} for name in seen}
