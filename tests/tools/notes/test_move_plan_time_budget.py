"""A move, rename or rewrite_links whose plan (reading and rewriting every note that may link to
the changed files) outlasts `[limits] max_rewrite_seconds` is refused with
`compute_budget_exceeded` before anything is written, saying how many of the candidate notes it
examined (G2 s87).

Each note's rewrite was bounded (`max_eval_seconds`, G1 s86), the call was not: a folder move
linked from 20,000 notes planned for 4.5 s and could run for minutes at 100,000. The budget here
is a microsecond, so the clock's look after the first note examined always finds it spent
(nothing timed); the dry run, the confirmation's preview and the real call are refused alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import started, write_files

TINY = {"max_rewrite_seconds": 0.000001}


def _vault(root: Path, notes: int = 12) -> dict[str, str]:
    files = {f"Topics/T{t}.md": f"# T{t}\n" for t in range(3)}
    files.update(
        {f"Notes/n{i}.md": f"See [[Topics/T{i % 3}]] and [t](../Topics/T{(i + 1) % 3}.md).\n" for i in range(notes)}
    )
    write_files(root, files)
    return files


def _refused(err: dict[str, Any], total: int) -> None:
    details = err["details"]
    assert (details["limit"], details["setting"]) == ("seconds", "max_rewrite_seconds"), err
    assert details["max_seconds"] == TINY["max_rewrite_seconds"]
    assert 1 <= details["examined"] < details["total"] == total, err
    assert "max_rewrite_seconds" in err["hint"]


async def test_a_folder_move_past_the_plan_budget_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    _vault(root)
    async with started(root, limits=TINY) as vg:
        await vg.indexed()
        before = vg.snapshot()
        # the dry run, the confirmation's preview (a move across folders asks first), the rename
        for tool, args in (
            ("move_note", {"path": "Topics", "new_path": "Archive/Topics", "dry_run": True}),
            ("move_note", {"path": "Topics", "new_path": "Archive/Topics"}),
            ("rename_note", {"path": "Topics", "new_path": "Subjects"}),
            ("rename_note", {"path": "Topics/T0.md", "new_path": "T9", "dry_run": True}),
        ):
            err = await vg.err(tool, "compute_budget_exceeded", **args)
            _refused(err, 9 if args["path"] == "Topics/T0.md" else 15)  # the linking notes and the moved ones
        assert vg.changed_since(before) == set()


async def test_rewrite_links_past_the_plan_budget_is_refused_alike(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    _vault(root)
    write_files(root, {"Other.md": "# O\n"})
    async with started(root, limits=TINY) as vg:
        await vg.indexed()
        before = vg.snapshot()
        for args in ({"dry_run": True}, {}):
            err = await vg.err(
                "rewrite_links", "compute_budget_exceeded", old_target="Topics/T0", new_target="Other", **args
            )
            _refused(err, 8)
        assert vg.changed_since(before) == set()


async def test_the_same_move_within_its_budget_is_made(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    _vault(root)
    async with started(root) as vg:
        await vg.indexed()
        done = await vg.ok("rename_note", path="Topics", new_path="Subjects")
        assert done["links_rewritten"] == 12
    assert "[[Subjects/T0]]" in (root / "Notes/n0.md").read_text()


async def test_the_refusal_counts_no_note_the_caller_may_not_read(tmp_path: Path) -> None:
    """Notes the caller may not read are left alone by a move (telling them would reveal they
    exist): they are not read, and not counted in `examined` / `total` either."""
    root = tmp_path / "vault"
    root.mkdir()
    files = {
        "Topics/T0.md": "# T0\n",
        "Elsewhere.md": "# E\n",
        **{f"Notes/n{i}.md": "See [[Topics/T0]].\n" for i in range(3)},
    }
    files.update({f"Private/p{i}.md": "See [[Topics/T0]].\n" for i in range(5)})
    write_files(root, files)
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(root, limits=TINY, acl=acl) as vg:
        await vg.indexed()
        for tool, args in (("rename_note", {"new_path": "T9"}), ("rewrite_links", {"new_target": "Elsewhere"})):
            source = {"path": "Topics/T0.md"} if tool == "rename_note" else {"old_target": "Topics/T0"}
            err = await vg.err(tool, "compute_budget_exceeded", dry_run=True, **source, **args)
            assert err["details"]["total"] == (4 if tool == "rename_note" else 3), err  # the moved note too
