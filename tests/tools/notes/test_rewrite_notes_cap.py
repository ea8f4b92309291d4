"""A move, rename, rewrite_links or rename_tag whose plan would rewrite more than `[limits]
max_rewrite_notes` notes is refused with `compute_budget_exceeded` (limit notes) as soon as its
scan finds one more, before anything is written; its dry run and confirmation preview alike (G3
s88). Its writes are atomic, fsynced and journaled one note at a time (~4 ms each on a lightly loaded
disk, ~12 ms on a busy one), all or nothing: a hub note linked from 100,000 notes planned in ~20 s and
then wrote for many minutes under the vault's move lock. Nothing here is timed: the cap is a count."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started, write_files

CAP = {"max_rewrite_notes": 2}


def _vault(root: Path) -> None:
    files = {"Hub.md": "# Hub\n", "Other.md": "# Other\n", "Topics/T.md": "# T\n"}
    files.update({f"Notes/n{i}.md": f"See [[Hub]] and [[Topics/T]], #proj {i}.\n" for i in range(6)})
    files.update({f"Private/p{i}.md": "See [[Hub]] and [[Topics/T]], #proj.\n" for i in range(4)})
    write_files(root, files)


ACL = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
EXAMINED = {"rename_note": (4, 7), "move_note": (3, 7)}
CALLS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("rename_note", {"path": "Hub.md", "new_path": "Hub2"}),
    ("move_note", {"path": "Topics", "new_path": "Archive/Topics"}),
    ("rewrite_links", {"old_target": "Hub", "new_target": "Other"}),
    ("rename_tag", {"old": "proj", "new": "project"}),
)


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=[t for t, _ in CALLS])
async def test_a_plan_rewriting_more_notes_than_the_cap_is_refused_before_anything_is_written(
    tmp_path: Path, tool: str, args: dict[str, Any]
) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    _vault(root)
    async with started(root, limits=CAP, acl=ACL) as vg:
        await vg.indexed()
        before = vg.snapshot()
        for dry_run in (True, False):  # the dry run; the preview (or the call, where none is asked)
            err = await vg.err(tool, "compute_budget_exceeded", **args, dry_run=dry_run)
            details = err["details"]
            assert (details["limit"], details["setting"], details["max_notes"]) == ("notes", "max_rewrite_notes", 2)
            # the third note that changes (a rename examines the renamed note first: Hub.md keeps its text);
            # the moved note is a candidate too, the 4 denied notes are not counted
            assert (details["examined"], details["total"]) == EXAMINED.get(tool, (3, 6)), err
            assert "max_rewrite_notes" in err["hint"]
        assert vg.changed_since(before) == set()


async def test_a_plan_within_the_cap_is_made(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    _vault(root)
    async with started(root, limits={"max_rewrite_notes": 6}, acl=ACL) as vg:
        await vg.indexed()
        done = await vg.ok("rename_note", path="Hub.md", new_path="Hub2")
        assert done["notes_rewritten"] == 6, done
    assert "[[Hub2]]" in (root / "Notes/n0.md").read_text()
