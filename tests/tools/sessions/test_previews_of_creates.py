"""A preview of a create onto a note already there answers what the call answers (H6 #8): in a
`write_mode = "dry-run"` vault, create_note / copy_note / bulk_create_notes onto an existing
note without leave to overwrite it are `already_exists`, as the real call is (and as move_note's
own dry run is), never "files_modified"; with leave (`if_exists='overwrite'`, `overwrite`) the
note is modified, and `if_exists='unique'` creates the numbered name the tool would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started

REFUSED: list[tuple[str, dict[str, Any]]] = [
    ("create_note", {"path": "Welcome", "content": "x"}),
    ("create_note", {"path": "Welcome.md", "content": "x", "if_exists": "error"}),
    ("copy_note", {"path": "Projects/Plan", "new_path": "Welcome"}),
    ("bulk_create_notes", {"notes": [{"path": "Fresh", "content": "x"}, {"path": "Welcome", "content": "x"}]}),
]


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.covers("create_note", "failure")
@pytest.mark.covers("copy_note", "failure")
async def test_a_dry_run_preview_of_a_create_onto_a_note_answers_already_exists(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault()
    async with started(root) as vg:  # what the real calls answer
        for tool, args in REFUSED:
            await vg.err(tool, "already_exists", **args)
    before = _files(root)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        for tool, args in REFUSED:
            error = await vg.err(tool, "already_exists", **args)
            assert error["details"]["path"] == "Welcome.md", (tool, error)
        kept = await vg.ok("create_note", path="Welcome", content="x", if_exists="overwrite")
        assert (kept["effects"]["files_modified"], kept["effects"]["files_created"]) == (["Welcome.md"], [])
        copied = await vg.ok("copy_note", path="Projects/Plan", new_path="Welcome", overwrite=True)
        assert copied["effects"]["files_modified"] == ["Welcome.md"]
        numbered = await vg.ok("create_note", path="Welcome", content="x", if_exists="unique")
        assert (numbered["effects"]["files_created"], numbered["effects"]["files_modified"]) == (["Welcome 1.md"], [])
        fresh = await vg.ok("create_note", path="Fresh", content="x")
        assert fresh["effects"]["files_created"] == ["Fresh.md"]
    assert _files(root) == before


TWINS: list[tuple[str, dict[str, Any]]] = [
    ("create_note", {"path": "projects/n", "content": "x"}),
    ("create_folder", {"path": "projects/sub"}),
    ("copy_note", {"path": "Projects/Plan", "new_path": "projects/Copy"}),
    ("bulk_create_notes", {"notes": [{"path": "G/x", "content": "x"}, {"path": "g/y", "content": "y"}]}),
]


@pytest.mark.covers("create_folder", "failure")
async def test_a_dry_run_preview_of_a_case_twin_create_is_the_calls_refusal(make_vault: Callable[..., Path]) -> None:
    """A create whose new file or folder differs only in letter case from one there (or one the same
    bulk call makes) is refused by the call (`already_exists`, its twin in `details`); the dry-run
    vault's preview promised it: 'projects/n.md' created, folders_created ['projects'] beside
    'Projects' (E8 s86). It is now the call's own error, and a same-case create still previews."""
    root = make_vault()
    async with started(root) as vg:  # what the real calls answer
        real = [await vg.err(tool, "already_exists", **args) for tool, args in TWINS]
    before = _files(root)
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        for (tool, args), error in zip(TWINS, real, strict=True):
            previewed = await vg.err(tool, "already_exists", **args)
            assert previewed == error, (tool, previewed, error)
        same = await vg.ok("create_note", path="Projects/n", content="x")
        assert same["effects"]["files_created"] == ["Projects/n.md"], same
    assert _files(root) == before
