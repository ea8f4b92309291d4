"""The path ACL engine, the acl/authorize layers and inspect_acl, through the dispatch chain."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.security.acl import VaultAcl
from service.settings import AclSettings
from service.types import Principal
from tests.conftest import started
from tests.security.conftest import SEC_VAULT, WORKED_ACL, caller


def acl(**cfg: Any) -> VaultAcl:
    return VaultAcl(AclSettings.model_validate(cfg))


@pytest.mark.parametrize(
    ("cfg", "path", "op", "allowed", "rule"),
    [
        ({}, "Any/Note.md", "write", True, "default allow"),
        ({"default_deny": True}, "Any/Note.md", "read", False, "default_deny"),
        ({"read_paths": ["Projects/**"]}, "Projects/a/b.md", "read", True, "read_paths"),
        ({"read_paths": ["Projects/**"]}, "Projects", "read", True, "read_paths"),
        ({"read_paths": ["Projects/**"]}, "Inbox/x.md", "read", False, "read_paths: no glob matches"),
        ({"read_paths": ["Projects/**"]}, "Inbox/x.md", "write", True, "default allow"),
        ({"read_paths": ["Projects/**"]}, "", "read", True, "vault root (listings filter each note)"),
        ({"default_deny": True}, "", "read", True, "vault root (listings filter each note)"),
        ({"default_deny": True}, "", "write", False, "default_deny"),
        ({"read_paths": ["A/B/*.md"]}, "A", "read", True, "read_paths: folder above an allowed glob"),
        ({"read_paths": ["A/B/*.md"]}, "A/B", "read", True, "read_paths: folder above an allowed glob"),
        ({"read_paths": ["A/B/*.md"]}, "A/C", "read", False, "read_paths: no glob matches"),
        ({"read_paths": ["A/B/*.md"]}, "AB", "read", False, "read_paths: no glob matches"),
        ({"write_paths": ["A/B/**"]}, "A", "write", False, "write_paths: no glob matches"),
        ({"delete_paths": ["A/B/**"]}, "A", "delete", False, "delete_paths: no glob matches"),
        ({"prefix_rules": [{"path": "", "read": "deny"}]}, "", "read", False, "prefix_rules: / read=deny"),
        ({"write_paths": ["*.md"]}, "Top.md", "write", True, "write_paths"),
        ({"write_paths": ["*.md"]}, "Deep/Top.md", "write", False, "write_paths: no glob matches"),
        ({"delete_paths": []}, "Top.md", "delete", False, "delete_paths: no glob matches"),
        # prefix rules: longest wins, deny beats allow at equal length, write governs delete
        (
            {"prefix_rules": [{"path": "A", "read": "deny"}, {"path": "A/B", "read": "allow"}]},
            "A/B/c.md",
            "read",
            True,
            "prefix_rules: A/B read=allow",
        ),
        (
            {"prefix_rules": [{"path": "A", "read": "allow"}, {"path": "A/B", "read": "deny"}]},
            "A/B/c.md",
            "read",
            False,
            "prefix_rules: A/B read=deny",
        ),
        (
            {"prefix_rules": [{"path": "A", "read": "allow"}, {"path": "A/", "read": "deny"}]},
            "A/x.md",
            "read",
            False,
            "prefix_rules: A read=deny",
        ),
        ({"prefix_rules": [{"path": "A", "read": "deny"}]}, "AB/x.md", "read", True, "default allow"),
        ({"prefix_rules": [{"path": "A", "read": "deny"}]}, "A/x.md", "write", True, "default allow"),
        ({"prefix_rules": [{"path": "A", "write": "deny"}]}, "A/x.md", "delete", False, "prefix_rules: A write=deny"),
        (
            {"default_deny": True, "prefix_rules": [{"path": "", "read": "allow"}]},
            "x.md",
            "read",
            True,
            "prefix_rules: / read=allow",
        ),
        (
            {"prefix_rules": [{"path": "Private", "read": "deny"}]},
            "private/x.md",
            "read",
            False,
            "prefix_rules: Private read=deny",
        ),
        (
            {"prefix_rules": [{"path": "", "read": "deny"}, {"path": "Open", "read": "allow"}]},
            "open/x.md",
            "read",
            False,
            "prefix_rules: / read=deny",
        ),
        (
            {"prefix_rules": [{"path": unicodedata.normalize("NFD", "Privé"), "write": "deny"}]},
            unicodedata.normalize("NFC", "Privé/x.md"),
            "write",
            False,
            f"prefix_rules: {unicodedata.normalize('NFC', 'Privé')} write=deny",
        ),
        (
            {"read_paths": [unicodedata.normalize("NFD", "Café/**")]},
            unicodedata.normalize("NFC", "Café/x.md"),
            "read",
            True,
            "read_paths",
        ),
        ({"read_paths": ["Projects"]}, "Projects/a/b.md", "read", True, "read_paths"),
        ({"write_paths": ["Inbox/"]}, "Inbox/x.md", "write", True, "write_paths"),
        ({"write_paths": ["Inbox/"]}, "Inboxes/x.md", "write", False, "write_paths: no glob matches"),
        ({"delete_paths": ["Inbox/Old.md"]}, "Inbox/Old.md", "delete", True, "delete_paths"),
        ({"delete_paths": ["Inbox/Old.md"]}, "Inbox/Other.md", "delete", False, "delete_paths: no glob matches"),
        ({"read_only": True}, "x.md", "write", False, "read_only"),
        ({"read_only": True}, "x.md", "read", True, "default allow"),
        ({}, ".obsidian/app.json", "read", False, "hard deny: .obsidian/"),
        ({}, ".trash/x.md", "read", False, "hard deny: .trash/"),
    ],
)
def test_engine_decisions(cfg: dict[str, Any], path: str, op: str, allowed: bool, rule: str) -> None:
    decision = acl(**cfg).decide(path, op)
    assert (decision.allowed, decision.rule) == (allowed, rule)


async def test_worked_example_write_inbox_read_projects_nothing_private(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT), acl=WORKED_ACL) as vg:
        await vg.indexed()
        before = vg.snapshot()
        assert (await vg.ok("read_note", path="Projects/Plan"))["title"] == "Plan"
        error = await vg.err("read_note", "acl_denied", path="Private/Diary")
        assert error["details"]["path"] == "Private/Diary.md" and error["details"]["op"] == "read"
        await vg.err("read_note", "acl_denied", path="Welcome")  # default deny
        await vg.err("write_note", "acl_denied", path="Projects/Plan", content="x", mode="overwrite")
        await vg.err("create_note", "acl_denied", path="Private/New", content="x")
        await vg.err("delete_note", "acl_denied", path="Inbox/Todo")  # delete_paths = []
        assert vg.snapshot() == before
        await vg.ok("create_note", path="Inbox/New", content="fresh\n")
        assert vg.read("Inbox/New.md") == "fresh\n"


async def test_vault_acl_block_replaces_the_root_block(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEC_VAULT)
    other = make_vault({"Open.md": "# Open\n"})
    vaults = [
        {"id": "main", "path": str(root)},
        {"id": "loose", "path": str(other), "acl": {"read_only": False}},
    ]
    async with started(root, vaults=vaults, acl={"read_only": True}) as vg:
        await vg.err("create_note", "forbidden", path="x", content="y")
        out = await vg.ok("create_note", path="x", content="y", vault="loose")
        assert out["path"] == "x.md"


async def test_read_only_kill_switch(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT), acl={"read_only": True}) as vg:
        before = vg.snapshot()
        error = await vg.err("write_note", "forbidden", path="Inbox/Todo", content="x", mode="overwrite")
        assert error["details"]["read_only"] is True
        await vg.err("delete_note", "forbidden", path="Inbox/Todo")
        await vg.err("move_note", "forbidden", path="Inbox/Todo", new_path="Inbox/Done")
        await vg.err("set_properties", "forbidden", path="Inbox/Todo", properties={"a": 1})
        assert (await vg.ok("read_note", path="Inbox/Todo"))["title"] == "Todo"
        decision = await vg.ok("inspect_acl", path="Inbox/Todo.md", op="write")
        assert (decision["allowed"], decision["code"], decision["read_only"]) == (False, "read_only_mode", True)
        assert vg.snapshot() == before


async def test_folder_narrowed_scope_confines_writes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT)) as vg:
        vg.principal = caller("read:vault write:vault/Inbox/**")
        before = vg.snapshot()
        error = await vg.err("create_note", "acl_denied", path="Projects/New", content="x")
        assert "narrowed" in error["details"]["rule"]
        await vg.err("move_note", "acl_denied", path="Inbox/Todo", new_path="Projects/Todo")
        await vg.err("delete_note", "forbidden", path="Inbox/Todo")  # no delete:vault at all
        assert vg.snapshot() == before
        await vg.ok("create_note", path="Inbox/Ok", content="x\n")
        assert (await vg.ok("read_note", path="Projects/Plan"))["title"] == "Plan"


async def test_missing_scopes_are_forbidden_with_details(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT)) as vg:
        vg.principal = caller("read:vault")
        before = vg.snapshot()
        error = await vg.err("write_note", "forbidden", path="Inbox/Todo", content="x", mode="overwrite")
        assert error["details"]["required"] == ["write:vault"]
        await vg.err("inspect_acl", "forbidden", path="Inbox")
        vg.principal = Principal(subject="anon", scopes=frozenset(), authenticated=False)
        await vg.err("read_note", "unauthorized", path="Welcome")
        assert vg.snapshot() == before


async def test_token_bound_to_a_vault(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEC_VAULT)
    other = make_vault({"Other.md": "# Other\n"})
    vaults = [{"id": "main", "path": str(root)}, {"id": "second", "path": str(other)}]
    async with started(root, vaults=vaults) as vg:
        vg.principal = caller("read:vault", vault="second")
        assert (await vg.ok("read_note", path="Other"))["title"] == "Other"
        error = await vg.err("read_note", "forbidden", path="Welcome", vault="main")
        assert error["details"]["bound_vault"] == "second"
        vg.principal = caller("read:vault")  # no vault claim on a multi-vault server: the default only
        assert (await vg.ok("read_note", path="Welcome"))["title"] == "Welcome"
        await vg.err("read_note", "forbidden", path="Other", vault="second")


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


async def test_a_configured_trash_folder_is_hard_denied(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT), writes={"trash_folder": "Bin"}) as vg:
        out = await vg.ok("inspect_acl", path="Bin/old.md", op="read")
        assert (out["allowed"], out["rule"]) == (False, "hard deny: bin/")
        before = vg.snapshot()
        await vg.err("create_note", "acl_denied", path="Bin/x", content="x")
        assert vg.snapshot() == before


async def test_narrowed_read_scope_may_list_the_folders_above_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT)) as vg:
        vg.principal = caller("read:vault/Projects/Notes/**")
        listed = await vg.ok("list_notes", folder="Projects")
        assert [i["path"] for i in listed["items"]] == ["Projects/Notes/Idea.md"]
        assert [i["path"] for i in (await vg.ok("list_notes"))["items"]] == ["Projects/Notes/Idea.md"]
        await vg.err("read_note", "acl_denied", path="Projects/Plan")
        await vg.err("list_notes", "acl_denied", folder="Inbox")


async def test_inspect_acl_follows_symlinks_like_a_real_call(make_vault: Callable[..., Path]) -> None:
    root = make_vault(SEC_VAULT)
    (root / "Inbox" / "Shortcut.md").symlink_to(root / "Private" / "Diary.md")
    async with started(root, acl={"prefix_rules": [{"path": "Private", "read": "deny"}]}) as vg:
        out = await vg.ok("inspect_acl", path="Inbox/Shortcut.md", op="read")
        assert out["allowed"] is False
        assert out["rule"] == "symlink target Private/Diary.md: prefix_rules: Private read=deny"
        await vg.err("read_note", "acl_denied", path="Inbox/Shortcut")
        assert (await vg.ok("inspect_acl", path="Inbox/Todo.md", op="read"))["allowed"] is True
