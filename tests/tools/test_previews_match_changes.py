"""Every tool that asks a human shows every file the call will change (issue 41, item 3): the
confirmation's file list — in the error's details (`files`, `files_changed`), in the preview
text, and in what `vaultgate confirm` prints — equals the set of files the confirmed call then
changed on disk (a snapshot of the vault before and after), however many there are."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from service.policy.confirm_cli import mint_for
from tests.conftest import Harness, snapshot, started

LINKERS = 25  # more than an elicitation form lists


def _vault() -> dict[str, str]:
    files = {
        f"Notes/n{i:02}.md": f"---\ntags: [topic]\n---\n# N{i}\n\nSee [[Hub/Target]] and [[Gone]].\n"
        for i in range(LINKERS)
    }
    files["Hub/Target.md"] = "# Target\n\nThe note everyone links to.\n"
    files["Hub/Other.md"] = "# Other\n\nsome text\n"
    files["Alone.md"] = "# Alone\n"
    files["Board.canvas"] = (
        '{"nodes": [{"id": "a", "type": "text", "text": "x", "x": 0, "y": 0, "width": 9, "height": 9}]}'
    )
    files[".obsidian/bookmarks.json"] = (
        '{"items": [{"type": "group", "title": "Reading", "ctime": 1, "items": '
        '[{"type": "file", "ctime": 2, "path": "Alone.md"}]}]}'
    )
    files[".obsidian/workspace.json"] = (  # Obsidian's tabs and recent files follow a move or a delete
        '{\n\t"main": {},\n\t"active": "a",\n\t"lastOpenFiles": [\n\t\t"Hub/Target.md",\n\t\t"Alone.md"\n\t]\n}'
    )
    return files


def _changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    """Files (not folders, not the server's own cache) that appeared, vanished or changed."""
    keys = set(before) | set(after)
    return {
        k for k in keys if not k.endswith("/") and not k.startswith(".vaultgate/") and before.get(k) != after.get(k)
    }


async def _confirmed_via_cli(vg: Harness, error: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> str:
    """Approve as a person does: `vaultgate confirm ARGS_HASH` prints the call and every file; the
    token is its last word."""
    capsys.readouterr()
    code = await mint_for(vg.app.settings, error["details"]["args_hash"], vault_id=error["details"]["vault"])
    assert code == 0
    printed = capsys.readouterr().out
    for rel in error["details"]["files"]:
        assert f"- {rel}\n" in printed, (rel, printed)
    assert f"files changed ({error['details']['files_changed']}):" in printed
    return printed.strip().split()[-1]


async def _check(vg: Harness, capsys: pytest.CaptureFixture[str], tool: str, **args: Any) -> set[str]:
    first = await vg.call(tool, **args)
    assert first.is_error and first.structured is not None, f"{tool} did not ask"
    error = first.structured["error"]
    assert error["code"] == "elicit_required", error
    files = error["details"]["files"]
    assert error["details"]["files_changed"] == len(files) and len(set(files)) == len(files)
    for rel in files:
        assert re.search(rf"^- {re.escape(rel)}$", error["details"]["preview"], re.M), rel
    token = await _confirmed_via_cli(vg, error, capsys)
    before = snapshot(vg.root)
    result = await vg.call(tool, **args, elicit_token=token)
    assert not result.is_error, result.structured
    changed = _changed(before, snapshot(vg.root))
    assert set(files) == changed, (sorted(set(files) - changed), sorted(changed - set(files)))
    return changed


MOVE_PLAN = {
    "goal": "file the target away and add an index",
    "steps": [
        {"id": "index", "tool": "create_note", "args": {"path": "Index/Start.md", "content": "# Start\n"}},
        {"id": "move", "tool": "move_note", "args": {"path": "Hub/Target.md", "new_path": "Archive/Target.md"}},
        {"id": "hub", "tool": "append_note", "args": {"path": "Hub/Other.md", "content": "filed"}},
    ],
}

Case = Callable[[Harness, pytest.CaptureFixture[str]], Awaitable[set[str]]]


async def _move(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "move_note", path="Hub/Target.md", new_path="Archive/Target.md")


async def _rename(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "rename_note", path="Hub/Target.md", new_path="Archive/Renamed.md")


async def _rename_tag(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "rename_tag", old="topic", new="subject", dry_run=False)


async def _rewrite(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "rewrite_links", old_target="Gone.md", new_target="Hub/Other.md", dry_run=False)


async def _plan(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "execute_plan", plan=MOVE_PLAN)


async def _undo(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    await vg.confirmed("execute_plan", plan=MOVE_PLAN)
    return await _check(vg, cap, "undo_last_plan")


async def _write(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "write_note", path="Other", content="replaced\n", mode="overwrite")


async def _create(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "create_note", path="Alone", content="again\n", if_exists="overwrite")


async def _copy(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "copy_note", path="Hub/Other.md", new_path="Alone.md", overwrite=True)


async def _delete(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "delete_note", path="Alone", permanent=True)


async def _bulk(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    notes = [{"path": f"Bulk/b{i:02}", "content": "x\n"} for i in range(LINKERS)]  # above bulk_confirm_above
    return await _check(vg, cap, "bulk_create_notes", notes=notes)


async def _canvas(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    node = {"id": "b", "type": "text", "text": "y", "x": 0, "y": 0, "width": 9, "height": 9}
    return await _check(vg, cap, "write_canvas", path="Board.canvas", nodes=[node])


async def _bookmark(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    return await _check(vg, cap, "remove_bookmark", title="Reading")


async def _macro(vg: Harness, cap: pytest.CaptureFixture[str]) -> set[str]:
    await vg.ok("save_macro", name="file-away", plan=MOVE_PLAN)
    return await _check(vg, cap, "run_macro", name="file-away")


CASES: dict[str, tuple[Case, int]] = {  # the case, and the fewest files it must change
    "move_note": (_move, LINKERS + 2),
    "rename_note": (_rename, LINKERS + 2),
    "rename_tag": (_rename_tag, LINKERS),
    "rewrite_links": (_rewrite, LINKERS),
    "execute_plan": (_plan, LINKERS + 4),
    "undo_last_plan": (_undo, LINKERS + 4),
    "write_note": (_write, 1),
    "create_note": (_create, 1),
    "copy_note": (_copy, 1),
    "delete_note": (_delete, 1),
    "bulk_create_notes": (_bulk, LINKERS),
    "write_canvas": (_canvas, 1),
    "remove_bookmark": (_bookmark, 1),
    "run_macro": (_macro, LINKERS + 4),
}


@pytest.mark.parametrize("case", sorted(CASES))
async def test_the_confirmation_lists_exactly_the_files_the_call_changes(
    make_vault: Callable[..., Path], capsys: pytest.CaptureFixture[str], case: str
) -> None:
    run, fewest = CASES[case]
    async with started(make_vault(_vault())) as vg:
        await vg.indexed()
        changed = await run(vg, capsys)
        assert len(changed) >= fewest, sorted(changed)
