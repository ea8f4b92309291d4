"""bulk_create_notes' checks and copy_note's destination checks read and hash a long existing note
in a worker thread (review R2 s64 F7): fe68d55 made the confirmation run the batch's checks, which
read and hashed every existing note on the event loop with no await between notes (3 x 30 MB:
725 ms of loop block), after overwrite_preview had read each on the loop too (as it did for
write_note, copy_note and the other confirmations); copy_note hashed an existing long destination
on the loop (af649b0 moved only the source's read). Past
`offloop.OFF_LOOP_CHARS` bytes on disk these run through `offloop.sized`; a short note inline.

Through the dispatch chain: the thread each read or hash of the notes runs in is recorded, no
timings. The app runs on the test's main thread, so "off the loop" is "not the main thread".
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
LONG = "# Long\n" + "plain words on a line of a long existing note\n" * 3_000  # ~140 KB
SHORT = "# Short\nplain words\n"
TARGETS = ("B1.md", "B2.md", "Dest.md")


async def _threads(make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, text: str) -> dict[str, set[str]]:
    """The threads the existing notes were read or hashed in, per step."""
    seen: dict[str, set[str]] = {}
    step = [""]

    def recording(name: str) -> None:
        real: Callable[..., Any] = getattr(VaultFiles, name)

        def recorded(self: VaultFiles, vp: Any, *args: Any, **kwargs: Any) -> Any:
            if vp.rel in TARGETS:
                seen.setdefault(step[0], set()).add(threading.current_thread().name)
            return real(self, vp, *args, **kwargs)

        monkeypatch.setattr(VaultFiles, name, recorded)

    recording("read")
    recording("current_etag")
    root = make_vault({name: text for name in TARGETS} | {"Src.md": "# Src\ncopied\n"})
    async with started(root) as vg:
        await vg.indexed(WITHIN)
        notes = [{"path": "B1", "content": "new one\n"}, {"path": "B2", "content": "new two\n"}]
        step[0] = "bulk asks"
        await vg.err("bulk_create_notes", "elicit_required", notes=notes, overwrite=True)
        step[0] = "bulk confirmed"
        items = (await vg.confirmed("bulk_create_notes", notes=notes, overwrite=True))["items"]
        assert [(i["path"], i["created"]) for i in items] == [("B1.md", False), ("B2.md", False)]
        step[0] = "write asks"
        await vg.err("write_note", "elicit_required", path="Dest", content="w\n", mode="overwrite")
        step[0] = "copy asks"
        await vg.err("copy_note", "elicit_required", path="Src", new_path="Dest", overwrite=True)
        etag = (await vg.ok("read_note", path="Dest"))["etag"]
        step[0] = "copy"
        await vg.ok("copy_note", path="Src", new_path="Dest", overwrite=True, expected_etag=etag)
    assert (root / "B1.md").read_text(encoding="utf-8") == "new one\n"
    assert (root / "Dest.md").read_text(encoding="utf-8") == "# Src\ncopied\n"
    return seen


async def test_long_existing_notes_are_read_and_hashed_off_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(LONG) > OFF_LOOP_CHARS
    seen = await _threads(make_vault, monkeypatch, LONG)
    main = threading.main_thread().name
    assert set(seen) == {"bulk asks", "bulk confirmed", "write asks", "copy asks", "copy"}
    assert {step: main in threads for step, threads in seen.items()} == {step: False for step in seen}


async def test_short_existing_notes_are_read_on_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = await _threads(make_vault, monkeypatch, SHORT)
    main = threading.main_thread().name
    assert set(seen) == {"bulk asks", "bulk confirmed", "write asks", "copy asks", "copy"}
    assert seen["bulk asks"] == seen["write asks"] == seen["copy asks"] == {main} and main in seen["copy"]
