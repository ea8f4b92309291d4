"""In a write-only drop box a case twin refusal does not spell the note the caller may not read
(review R1 s63 F9): `Inbox/alice salary review.md` answered already_exists naming
'Inbox/Alice Salary Review.md' (message and details.path), so a caller could probe names in any
letter case and read back their true spelling, where the exact name answers acl_denied with the
rule only. Now every creating tool answers the drop box's acl_denied naming the caller's own path;
a twin the caller may read is still named, as before. The twin's answer is the exact name's, message
included (review R1 s64 F2: the messages differed, so trying a few spellings told the true one)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.security.acl import DROP_BOX_RULE
from tests.conftest import e2e, started

SECRET = "Alice Salary Review"
VAULT = {
    f"Inbox/{SECRET}.md": "# secret\n",
    "Inbox/Hidden Folder/x.md": "x\n",
    "Inbox/mine/a.md": "a\n",
}
DROP_BOX = {"read_paths": ["Inbox/mine/**"], "write_paths": ["Inbox/**"]}

PROBES: dict[str, tuple[str, dict[str, Any], str]] = {
    "create_note": (
        "create_note",
        {"path": "Inbox/alice salary review.md", "content": "x"},
        "Inbox/alice salary review.md",
    ),
    "write_note": ("write_note", {"path": "Inbox/ALICE SALARY REVIEW", "content": "x"}, "Inbox/ALICE SALARY REVIEW.md"),
    "copy_note": (
        "copy_note",
        {"path": "Inbox/mine/a", "new_path": "Inbox/alice salary REVIEW"},
        "Inbox/alice salary REVIEW.md",
    ),
    "move_note": (
        "move_note",
        {"path": "Inbox/mine/a", "new_path": "Inbox/Alice salary review"},
        "Inbox/Alice salary review.md",
    ),
    "bulk": (
        "bulk_create_notes",
        {"notes": [{"path": "Inbox/mine/b"}, {"path": "Inbox/alice Salary Review"}]},
        "Inbox/alice Salary Review.md",
    ),
    "folder-above": ("create_note", {"path": "Inbox/hidden folder/y", "content": "y"}, "Inbox/hidden folder/y.md"),
    "create_folder": ("create_folder", {"path": "Inbox/HIDDEN FOLDER"}, "Inbox/HIDDEN FOLDER"),
}


@pytest.mark.parametrize("probe", PROBES)
async def test_a_twin_of_a_note_the_caller_may_not_read_is_not_spelled(
    make_vault: Callable[..., Path], probe: str
) -> None:
    tool, args, named = PROBES[probe]
    root = make_vault(VAULT)
    async with started(root, acl=DROP_BOX) as vg:
        before = vg.snapshot()
        error = await vg.err(tool, "acl_denied", **args)
        assert error["details"] == {"path": named, "op": "write", "rule": DROP_BOX_RULE}, error
        shown = json.dumps(error)
        assert SECRET not in shown and "Hidden Folder" not in shown, shown
        assert vg.snapshot() == before


def _but_path(error: dict[str, Any], path: str) -> str:
    """The answer with the caller's own path taken out (what remains must not depend on the spelling)."""
    return json.dumps(error, sort_keys=True).replace(path, "<path>")


@pytest.mark.parametrize("spelling", ["alice salary review", "ALICE SALARY REVIEW", "Alice salary review"])
async def test_the_twin_s_refusal_is_the_exact_name_s_message_included(
    make_vault: Callable[..., Path], spelling: str
) -> None:
    root = make_vault(VAULT)
    async with started(root, acl=DROP_BOX) as vg:
        exact = await vg.err("create_note", "acl_denied", path=f"Inbox/{SECRET}", content="x")
        twin = await vg.err("create_note", "acl_denied", path=f"Inbox/{spelling}", content="x")
    assert _but_path(twin, f"Inbox/{spelling}.md") == _but_path(exact, f"Inbox/{SECRET}.md"), (exact, twin)


async def test_a_twin_the_caller_may_read_is_still_named(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root, acl=DROP_BOX) as vg:
        error = await vg.err("create_note", "already_exists", path="Inbox/MINE/new", content="x")
        assert error["details"] == {"path": "Inbox/mine", "new_path": "Inbox/MINE/new.md"}
        error = await vg.err("bulk_create_notes", "already_exists", notes=[{"path": "Inbox/N"}, {"path": "Inbox/n"}])
        assert error["details"] == {"path": "Inbox/N.md", "new_path": "Inbox/n.md"}  # the caller's own batch
    async with started(root) as vg:  # no ACL: the twin is named
        error = await vg.err("create_note", "already_exists", path="Inbox/alice salary review", content="x")
        assert error["details"]["path"] == f"Inbox/{SECRET}.md"


async def test_the_drop_box_twin_refusal_over_http(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with e2e(root, acl=DROP_BOX) as (url, vg), Client(url) as client:
        result = await client.call_tool("create_note", {"path": "Inbox/alice salary review", "content": "x"})
        assert result.is_error and result.structured_content is not None
        error = result.structured_content["error"]
        assert error["code"] == "acl_denied" and error["details"]["rule"] == DROP_BOX_RULE, error
        assert SECRET not in json.dumps(result.structured_content) and SECRET not in str(result.content)
        exact = await client.call_tool("create_note", {"path": f"Inbox/{SECRET}", "content": "x"})
        assert exact.is_error and exact.structured_content is not None
        assert _but_path(error, "Inbox/alice salary review.md") == _but_path(
            exact.structured_content["error"], f"Inbox/{SECRET}.md"
        ), (error, exact.structured_content)  # one answer: the spelling taken is not told
        assert sorted(p.name for p in (root / "Inbox").iterdir() if p.is_file()) == [f"{SECRET}.md"]
