"""inspect_acl: the ACL's decision and rule for a path, through the dispatch chain, as a real call
would meet it (symlinks followed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started
from tests.sec_vault import SEC_VAULT, WORKED_ACL


@pytest.mark.covers("inspect_acl", "success")
@pytest.mark.covers("inspect_acl", "failure")
async def test_inspect_acl_explains_decisions(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT), acl=WORKED_ACL) as vg:
        out = await vg.ok("inspect_acl", path="Private/Diary.md", op="read")
        assert (out["allowed"], out["rule"], out["code"]) == (False, "prefix_rules: Private read=deny", "acl_denied")
        out = await vg.ok("inspect_acl", path="Inbox/x.md", op="write")
        assert (out["allowed"], out["rule"]) == (True, "write_paths")
        narrowed = await vg.ok("inspect_acl", path="Inbox/x.md", op="write", scopes=["write:vault/Projects/**"])
        assert narrowed["allowed"] is False and narrowed["scopes"] == ["write:vault/Projects/**"]
        hidden = await vg.ok("inspect_acl", path=".obsidian/app.json")
        assert (hidden["allowed"], hidden["rule"]) == (False, "hard deny: .obsidian/")
        await vg.err("inspect_acl", "path_invalid", path="../etc/passwd")
        await vg.err("inspect_acl", "validation_error", path="x", op="execute")


async def test_inspect_acl_follows_symlinks_like_a_real_call(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEC_VAULT)
    (root / "Inbox" / "Shortcut.md").symlink_to(root / "Private" / "Diary.md")
    async with started(root, acl={"prefix_rules": [{"path": "Private", "read": "deny"}]}) as vg:
        out = await vg.ok("inspect_acl", path="Inbox/Shortcut.md", op="read")
        assert out["allowed"] is False
        assert out["rule"] == "symlink target Private/Diary.md: prefix_rules: Private read=deny"
        await vg.err("read_note", "acl_denied", path="Inbox/Shortcut")
        assert (await vg.ok("inspect_acl", path="Inbox/Todo.md", op="read"))["allowed"] is True


async def test_inspect_acl_takes_a_note_by_the_names_the_note_tools_take(make_vault: Callable[..., Path]) -> None:
    files = {"People/Bob.md": "# Bob\n", "A/Twin.md": "a\n", "B/Twin.md": "b\n"}
    async with started(make_vault(files), acl={"prefix_rules": [{"path": "People/Bob.md", "read": "deny"}]}) as vg:
        await vg.indexed()
        for name in ("People/Bob.md", "People/Bob", "Bob", "bob", "[[Bob]]"):
            out = await vg.ok("inspect_acl", path=name, op="read")
            assert (out["path"], out["allowed"]) == ("People/Bob.md", False), name
            assert out["rule"] == "prefix_rules: People/Bob.md read=deny", name
        await vg.err("inspect_acl", "ambiguous_note", path="Twin")
        new = await vg.ok("inspect_acl", path="People/Carol", op="write")  # no such note: the path as written
        assert new["path"] == "People/Carol" and new["allowed"] is True
        assert (await vg.ok("inspect_acl", path="People"))["path"] == "People"  # a folder is the folder
