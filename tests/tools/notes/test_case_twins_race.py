"""Case twins, review R1 s63 follow-ups: two creates of twins at the same time (F1), the names
compared as Obsidian compares them (F11), the folder scan off the event loop (F5), and
create_note if_exists="unique" under a folder that twins one there (F7)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault import casing
from service.vault.casing import case_twin, fold
from service.vault.files import VaultFiles
from service.vault.paths import VaultPath
from tests.conftest import e2e, started

Call = Callable[[str, dict[str, Any]], Awaitable[tuple[bool, dict[str, Any]]]]


def _hold_first_write(monkeypatch: pytest.MonkeyPatch, held: str) -> tuple[threading.Event, threading.Event]:
    """The write of `held` stops as its worker thread starts (after the twin check, before any
    folder or file of it is made) until `release` is set; `entered` tells it got there."""
    entered, release = threading.Event(), threading.Event()
    real = VaultFiles._write_sync

    def holding(self: VaultFiles, vp: VaultPath, *args: Any) -> Any:
        if vp.rel == held and not entered.is_set():
            entered.set()
            release.wait(60)
        return real(self, vp, *args)

    monkeypatch.setattr(VaultFiles, "_write_sync", holding)
    return entered, release


def _watch_create_keys(monkeypatch: pytest.MonkeyPatch, rel: str) -> asyncio.Event:
    """Set when a create of `rel` asks for the locks twins share (it then waits for them)."""
    asked = asyncio.Event()
    real = getattr(casing, "create_keys", None)

    def watching(root: Path, path: str) -> list[str]:
        if path == rel:
            asked.set()
        assert real is not None
        return real(root, path)

    monkeypatch.setattr(casing, "create_keys", watching, raising=False)
    return asked


async def _race(
    monkeypatch: pytest.MonkeyPatch, call: Call, first: str, second: str, meanwhile: Callable[[], object] = list
) -> list[tuple[bool, Any]]:
    """`create_note` of `first`, held inside its write; `meanwhile` run; then `create_note` of
    `second`; `first` is let go once `second` is done or waits for the twins' lock (no timing:
    events only)."""
    entered, release = _hold_first_write(monkeypatch, first)
    asked = _watch_create_keys(monkeypatch, second)
    one = asyncio.create_task(call("create_note", {"path": first, "content": "one"}))
    await asyncio.to_thread(entered.wait, 60)
    meanwhile()
    two = asyncio.create_task(call("create_note", {"path": second, "content": "two"}))
    waiting = asyncio.create_task(asked.wait())
    await asyncio.wait([two, waiting], return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    release.set()
    return [await one, await two]


CASES = [("B/Twin.md", "B/twin.md", "B/Twin.md"), ("D/X/a.md", "D/x/b.md", "D/X")]


@pytest.mark.parametrize(("first", "second", "twin"), CASES)
async def test_two_twins_created_at_once_the_second_is_already_exists(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, first: str, second: str, twin: str
) -> None:
    root = make_vault({"B/keep.md": "k\n", "D/keep.md": "k\n"})
    async with started(root) as vg:

        async def call(tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
            result = await vg.call(tool, **args)
            return result.is_error, result.structured

        (err1, out1), (err2, out2) = await _race(monkeypatch, call, first, second)
    assert not err1 and out1["created"], out1
    assert err2 and out2["error"]["code"] == "already_exists", out2
    assert out2["error"]["details"] == {"path": twin, "new_path": second}
    assert not (root / second).exists() and (root / first).read_text() == "one"


async def test_twins_in_a_new_folder_the_first_made_before_its_file(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first create finds `Memory` missing; its write makes the folder, and the second create
    comes before its file: it finds the folder there, yet still waits for the first and is refused
    (two memory agents creating `Ann Lee` and `ann lee` in a fresh vault made both)."""
    root = make_vault({"B/keep.md": "k\n"})
    async with started(root) as vg:

        async def call(tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
            result = await vg.call(tool, **args)
            return result.is_error, result.structured

        def folder_made() -> None:  # as the first write does before its file
            (root / "Memory").mkdir()

        (err1, out1), (err2, out2) = await _race(
            monkeypatch, call, "Memory/Ann Lee.md", "Memory/ann lee.md", meanwhile=folder_made
        )
    assert not err1 and out1["created"], out1
    assert err2 and out2["error"]["code"] == "already_exists", out2
    assert out2["error"]["details"] == {"path": "Memory/Ann Lee.md", "new_path": "Memory/ann lee.md"}
    assert sorted(p.name for p in (root / "Memory").iterdir()) == ["Ann Lee.md"]


async def test_over_http_two_twins_at_once(make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_vault({"B/keep.md": "k\n"})
    async with e2e(root) as (url, _h), Client(url) as client:

        async def call(tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
            result = await client.call_tool(tool, args)
            return result.is_error, result.structured_content

        (err1, _), (err2, out2) = await _race(monkeypatch, call, "B/Twin.md", "B/twin.md")
    assert not err1 and err2 and out2["error"]["code"] == "already_exists", out2
    assert sorted(p.name for p in (root / "B").iterdir()) == ["Twin.md", "keep.md"]


def test_names_compare_as_obsidian_lower_cases_them(tmp_path: Path) -> None:
    (tmp_path / "Physik").mkdir()
    (tmp_path / "Physik" / "Masse.md").write_text("x")
    (tmp_path / "Dict").mkdir()
    (tmp_path / "Dict" / "\ufb01le.md").write_text("x")  # the ligature fi
    (tmp_path / "Straße").mkdir()
    assert case_twin(tmp_path, "Physik/Maße.md") is None  # measures, not mass: another word
    assert case_twin(tmp_path, "Dict/file.md") is None
    assert case_twin(tmp_path, "STRASSE/new.md") is None
    assert case_twin(tmp_path, "Physik/MASSE.md") == "Physik/Masse.md"  # letter case only: twins
    assert case_twin(tmp_path, "STRAßE/new.md") == "Straße"
    assert fold("Maße") != fold("Masse") and fold("MAßE") == fold("maße") and fold("ΣΊΣΥΦΟΣ") == fold("σίσυφοσ")


async def test_create_note_beside_a_different_word(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Physik/Masse.md": "# Masse\n"})
    async with started(root) as vg:
        await vg.ok("create_note", path="Physik/Maße", content="Maße\n")
        err = await vg.err("create_note", "already_exists", path="Physik/MASSE", content="x")
        assert err["details"]["path"] == "Physik/Masse.md", err
    assert sorted(p.name for p in (root / "Physik").iterdir()) == ["Masse.md", "Maße.md"]


async def test_the_folder_is_scanned_off_the_event_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    loop_thread: list[bool] = []
    real = casing.os.listdir

    def recording(folder: str) -> list[str]:
        loop_thread.append(threading.current_thread() is threading.main_thread())
        return real(folder)

    root = make_vault({"Inbox/old.md": "x", "Moved/a.md": "x"})
    async with started(root) as vg:
        monkeypatch.setattr(casing.os, "listdir", recording)
        await vg.ok("create_note", path="Inbox/new", content="x")
        await vg.ok("copy_note", path="Inbox/old", new_path="Inbox/copy")
        await vg.ok("create_folder", path="Inbox/Sub")
        await vg.ok("rename_note", path="Moved/a", new_path="Moved/b", dry_run=False)
    assert loop_thread and not any(loop_thread), loop_thread


async def test_unique_under_a_folder_twin_answers_at_once(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Notes/a.md": "x", "B/Twin.md": "t"})
    listed: list[str] = []

    class CountingOs:  # casing's own listings only: `casing.os` is the os module the whole server uses
        def __getattr__(self, name: str) -> Any:
            return getattr(os, name)

        def listdir(self, folder: str) -> list[str]:
            listed.append(folder)
            return os.listdir(folder)

    async with started(root) as vg:
        monkeypatch.setattr(casing, "os", CountingOs())
        err = await vg.err("create_note", "already_exists", path="notes/x", content="x", if_exists="unique")
        assert err["details"] == {"path": "Notes", "new_path": "notes/x.md"}, err
        assert "letter case" in err["message"] and err["hint"], err
        assert len(listed) == 1, len(listed)
        made = await vg.ok("create_note", path="B/twin", content="x", if_exists="unique")  # the file twins:
        assert made["path"] == "B/Twin 1.md", made  # a number still makes a name of its own
    async with e2e(root) as (url, _h), Client(url) as client:
        result = await client.call_tool("create_note", {"path": "notes/y", "content": "x", "if_exists": "unique"})
        assert result.is_error and result.structured_content is not None
        assert result.structured_content["error"]["details"]["path"] == "Notes", result.structured_content
    assert not (root / "notes").exists()


def test_a_batch_folds_each_folder_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # bulk_create_notes' pre-check (`listed`): each folder's names folded once, then each new
    # path is a look-up (before: every check folded the whole listing again, R1 s63 F5)
    (tmp_path / "F").mkdir()
    for i in range(100):
        (tmp_path / "F" / f"Notiz über {i}.md").touch()
    (tmp_path / "F" / "Zoe\u0308.md").touch()  # named in NFD: the same name as NFC Zoë.md
    folded: list[str] = []
    real = casing.fold

    def counting(name: str) -> str:
        folded.append(name)
        return real(name)

    monkeypatch.setattr(casing, "fold", counting)
    listed: dict[str, Any] = {}
    assert [case_twin(tmp_path, f"F/Zoë neu {i}.md", listed) for i in range(20)] == [None] * 20
    assert case_twin(tmp_path, "F/NOTIZ ÜBER 7.md", listed) == "F/Notiz über 7.md"
    assert case_twin(tmp_path, "F/Zoë.md", listed) is None  # that note itself, in another spelling
    assert case_twin(tmp_path, "F/ZOË.md", listed) == "F/Zoë.md"
    assert len(folded) <= 101 + 23, len(folded)
