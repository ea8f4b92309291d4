"""A delete to the trash that does not happen leaves nothing behind (review R1 s64 F4, F6): the
note's lock, its last compare and the look at the note come before the trash's folders are made
and the plan's records are kept. Before, the look came first, outside the lock: a note another
program deleted meanwhile kept the plan's records (undo then made it again, with `.trash`; the
answer was io_error ENOENT, now note_not_found), and a delete refused by its last compare left the
empty `.trash/<folders>` it had made."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault import dirfd
from tests.conftest import e2e, started


def _tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if ".vaultgate" not in p.parts)


async def test_a_plan_s_delete_of_a_note_another_program_deleted_is_not_undone_as_done(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"B.md": "b\n", "Home.md": "h\n"})
    real_rename = dirfd.rename

    def other_program_deletes_first(r: Path, src: str, dst: str, **kw: Any) -> list[str]:
        if ".trash" in dst and os.path.exists(os.path.join(r, src)):
            os.unlink(os.path.join(r, src))  # after the delete looked, before it moves the note
        return real_rename(r, src, dst, **kw)

    monkeypatch.setattr(dirfd, "rename", other_program_deletes_first)
    async with started(root) as vg:
        await vg.indexed()
        steps = [
            {"id": "w", "tool": "append_note", "args": {"path": "Home", "content": "x\n"}},
            {"id": "d", "tool": "delete_note", "args": {"path": "B"}},
        ]
        run = await vg.call("execute_plan", plan={"goal": "tidy", "steps": steps})
        assert run.structured is not None and run.structured["status"] == "failed", run.structured
        [error] = run.structured["steps"][1]["errors"]
        assert error["code"] == "note_not_found", error  # nothing was done: not an io_error
        monkeypatch.setattr(dirfd, "rename", real_rename)
        undo = await vg.ok("undo_last_plan", dry_run=True)
        assert undo["restored"] == ["Home.md"], undo  # before: ["Home.md", ".trash", "B.md"]
        assert not undo["conflicts"], undo
        await vg.confirmed("undo_last_plan")
    assert _tree(root) == ["Home.md"]  # B.md is not made again, no .trash
    assert (root / "Home.md").read_text(encoding="utf-8") == "h\n"


async def test_a_delete_refused_by_its_last_compare_makes_no_trash_folder(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Home.md": "h\n", "Deep/Sub/N.md": "n\n"})
    real_rename = dirfd.rename

    def edited_meanwhile(r: Path, src: str, dst: str, **kw: Any) -> list[str]:
        if ".trash" in dst:
            with open(os.path.join(r, src), "a", encoding="utf-8") as f:
                f.write("edited by another program meanwhile\n")  # after the delete's first compare
        return real_rename(r, src, dst, **kw)

    monkeypatch.setattr(dirfd, "rename", edited_meanwhile)
    async with started(root) as vg:
        await vg.indexed()
        etag = (await vg.ok("read_note", path="Deep/Sub/N"))["etag"]
        await vg.err("delete_note", "conflict", path="Deep/Sub/N", expected_etag=etag)
    assert _tree(root) == ["Deep", "Deep/Sub", "Deep/Sub/N.md", "Home.md"]  # before: .trash/Deep/Sub too


async def test_a_delete_of_a_note_another_program_deleted_meanwhile_is_note_not_found(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"B.md": "b\n", "Home.md": "h\n"})
    real_rename = dirfd.rename

    def gone_first(r: Path, src: str, dst: str, **kw: Any) -> list[str]:
        os.unlink(os.path.join(r, src))  # another program, after the delete looked
        return real_rename(r, src, dst, **kw)

    monkeypatch.setattr(dirfd, "rename", gone_first)
    async with started(root) as vg:
        await vg.err("delete_note", "note_not_found", path="B")  # before: io_error
    assert _tree(root) == ["Home.md"]


async def test_over_http_the_vanished_note_s_delete_is_note_not_found_and_makes_no_trash(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Deep/B.md": "b\n", "Home.md": "h\n"})
    real_rename = dirfd.rename

    def gone_first(r: Path, src: str, dst: str, **kw: Any) -> list[str]:
        os.unlink(os.path.join(r, src))  # another program, after the delete looked
        return real_rename(r, src, dst, **kw)

    monkeypatch.setattr(dirfd, "rename", gone_first)
    async with e2e(root) as (url, _vg), Client(url) as client:
        result = await client.call_tool("delete_note", {"path": "Deep/B"})
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["error"]["code"] == "note_not_found", result.structured_content
    assert _tree(root) == ["Deep", "Home.md"]  # no .trash/Deep made for a move that did not happen
