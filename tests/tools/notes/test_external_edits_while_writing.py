"""Another program saves, renames or deletes a note while a tool's read-modify-write of it is in
flight (`VaultFiles.modify`: append, prepend, patch, property and task edits): the change lands
after the server read the note and wrote its new bytes to the temp file, right before the rename
(`tests.external_edits`). The other program's change is never overwritten or undone: without an
etag the tool applies its edit again to the note as it is now, with one it answers `conflict`, and
a note renamed or deleted meanwhile is never brought back under its old name."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault.etags import etag_of
from tests.conftest import Harness, e2e, started
from tests.e2e.calls import error as sdk_error
from tests.e2e.calls import ok as sdk_ok
from tests.external_edits import at_last_moment

NOTE = "# N\n\n## Log\n\n- [ ] task one\n"
EXTERNAL = "- a line another program appended\n"


def _append_externally(root: Path, rel: str = "N.md", line: str = EXTERNAL) -> Callable[[], None]:
    def append() -> None:
        fd = os.open(root / rel, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    return append


def _temps(root: Path) -> list[str]:
    return [p.name for p in root.rglob("*.vgtmp")]


# tool, its arguments, what its edit leaves in the note
EDITS: list[tuple[str, dict[str, Any], str]] = [
    ("append_note", {"content": "agent line\n"}, "agent line\n"),
    ("write_note", {"content": "agent line\n", "mode": "append"}, "agent line\n"),
    ("prepend_note", {"content": "agent line\n"}, "agent line\n"),
    ("patch_note", {"heading": ["N", "Log"], "position": "append", "content": "agent line"}, "agent line"),
    ("set_properties", {"properties": {"status": "agent"}}, "status: agent"),
    ("set_task_status", {"line": 5, "status": "x", "expected_text": "task one"}, "- [x] task one"),
]


@pytest.mark.parametrize(("tool", "args", "effect"), EDITS, ids=[e[0] for e in EDITS])
async def test_a_line_appended_by_another_program_while_the_tool_writes_is_kept(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tool: str, args: dict[str, Any], effect: str
) -> None:
    root = make_vault({"N.md": NOTE})
    async with started(root) as vg:
        moment = at_last_moment(monkeypatch, "N.md", _append_externally(root))
        out = await vg.ok(tool, path="N.md", **args)
        text = vg.read("N.md")
        assert EXTERNAL in text and text.count(effect) == 1, text
        assert moment.ran == 1 and moment.writes == 2  # the first write gave way, the second landed
        assert out["etag"] == etag_of((root / "N.md").read_bytes())
        assert _temps(root) == []


async def test_with_an_expected_etag_a_save_meanwhile_is_a_conflict_and_is_kept(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await vg.ok("create_note", path="N.md", content=NOTE)
    etag = (await vg.ok("read_note", path="N.md"))["etag"]
    at_last_moment(monkeypatch, "N.md", _append_externally(vg.root))
    error = await vg.err("append_note", "conflict", path="N.md", content="agent line\n", expected_etag=etag)
    assert vg.read("N.md") == NOTE + EXTERNAL
    assert error["details"]["current_etag"] == etag_of((NOTE + EXTERNAL).encode())
    assert _temps(vg.root) == []


@pytest.mark.parametrize("with_etag", [False, True])
async def test_a_note_renamed_by_another_program_meanwhile_is_not_brought_back(
    vg: Harness, monkeypatch: pytest.MonkeyPatch, with_etag: bool
) -> None:
    await vg.ok("create_note", path="N.md", content=NOTE)
    etag = {"expected_etag": etag_of(NOTE.encode())} if with_etag else {}
    at_last_moment(monkeypatch, "N.md", lambda: os.rename(vg.root / "N.md", vg.root / "Renamed.md"))
    await vg.err("append_note", "conflict" if with_etag else "note_not_found", path="N.md", content="x\n", **etag)
    assert not (vg.root / "N.md").exists()
    assert vg.read("Renamed.md") == NOTE
    assert _temps(vg.root) == []


async def test_a_note_deleted_meanwhile_is_not_created_again(vg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    await vg.ok("create_note", path="Folder/N.md", content=NOTE)
    at_last_moment(monkeypatch, "Folder/N.md", lambda: os.unlink(vg.root / "Folder/N.md"))
    await vg.err("patch_note", "note_not_found", path="Folder/N.md", heading=["N", "Log"], content="x")
    assert not (vg.root / "Folder/N.md").exists()


async def test_a_touch_meanwhile_is_no_change_and_the_write_lands_at_once(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await vg.ok("create_note", path="N.md", content=NOTE)
    path = vg.root / "N.md"
    moment = at_last_moment(monkeypatch, "N.md", lambda: os.utime(path, (1_000_000_000, 1_000_000_000)))
    await vg.ok("append_note", path="N.md", content="agent line\n")
    assert moment.writes == 1 and vg.read("N.md") == NOTE + "agent line\n"


async def test_a_note_that_keeps_changing_is_a_conflict_after_bounded_tries(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await vg.ok("create_note", path="N.md", content=NOTE)
    moment = at_last_moment(monkeypatch, "N.md", _append_externally(vg.root), times=None)
    await vg.err("append_note", "conflict", path="N.md", content="agent line\n")
    from service.vault import reread  # (after the call: a test of the code before the fix fails on the call)

    assert moment.writes == reread.TRIES
    assert vg.read("N.md") == NOTE + EXTERNAL * reread.TRIES
    assert _temps(vg.root) == []


async def test_a_plan_step_that_wrote_again_undoes_to_the_other_programs_version(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write that gave way is not in the run's journal: undo puts back what the step replaced."""
    await vg.ok("create_note", path="N.md", content=NOTE)
    at_last_moment(monkeypatch, "N.md", _append_externally(vg.root))
    plan = {"goal": "log", "steps": [{"id": "a", "tool": "append_note", "args": {"path": "N.md", "content": "agent"}}]}
    run = await vg.ok("execute_plan", plan=plan)
    assert run["status"] == "done", run
    assert vg.read("N.md") == NOTE + EXTERNAL + "agent"
    undone = await vg.confirmed("undo_last_plan")
    assert undone["conflicts"] == [] and "N.md" in undone["restored"]
    assert vg.read("N.md") == NOTE + EXTERNAL


async def test_over_http_an_append_keeps_a_save_and_never_revives_a_renamed_note(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"N.md": NOTE, "M.md": NOTE})
    async with e2e(root) as (url, _h), Client(url) as client:
        at_last_moment(monkeypatch, "N.md", _append_externally(root))
        await sdk_ok(client, "append_note", path="N.md", content="agent line\n")
        assert (root / "N.md").read_text() == NOTE + EXTERNAL + "agent line\n"
        at_last_moment(monkeypatch, "M.md", lambda: os.rename(root / "M.md", root / "Moved.md"))
        error = await sdk_error(client, "append_note", path="M.md", content="agent line\n")
        assert error["code"] == "note_not_found"
        assert not (root / "M.md").exists() and (root / "Moved.md").read_text() == NOTE


async def test_an_undo_never_replaces_a_save_made_while_it_writes(vg: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    await vg.ok("create_note", path="N.md", content=NOTE)
    plan = {"goal": "log", "steps": [{"id": "a", "tool": "append_note", "args": {"path": "N.md", "content": "agent"}}]}
    assert (await vg.ok("execute_plan", plan=plan))["status"] == "done"
    token = await vg.token_for("undo_last_plan")
    at_last_moment(monkeypatch, "N.md", _append_externally(vg.root))
    await vg.err("undo_last_plan", "conflict", elicit_token=token)
    assert vg.read("N.md") == NOTE + "agent" + EXTERNAL
    assert _temps(vg.root) == []


async def test_a_copy_over_a_note_with_its_etag_never_replaces_a_save_made_meanwhile(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    await vg.ok("create_note", path="A.md", content="# A\n")
    await vg.ok("create_note", path="N.md", content=NOTE)
    at_last_moment(monkeypatch, "N.md", _append_externally(vg.root))
    etag = etag_of(NOTE.encode())
    await vg.err("copy_note", "conflict", path="A.md", new_path="N.md", overwrite=True, expected_etag=etag)
    assert vg.read("N.md") == NOTE + EXTERNAL


async def test_a_move_never_replaces_a_note_another_program_created_at_its_destination(
    vg: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.vault import dirfd

    await vg.ok("create_note", path="A.md", content="# A\n")
    real = dirfd.rename

    def rename(root: Path, src: str, dst: str, **kwargs: Any) -> list[str]:
        if dst == "B.md":  # another program saves B.md after the server found no B.md there
            (vg.root / "B.md").write_text("# B, saved by a person\n")
        return real(root, src, dst, **kwargs)

    monkeypatch.setattr(dirfd, "rename", rename)
    await vg.err("move_note", "already_exists", path="A.md", new_path="B.md")
    assert vg.read("B.md") == "# B, saved by a person\n" and vg.read("A.md") == "# A\n"
