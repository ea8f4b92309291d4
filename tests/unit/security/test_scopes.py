"""Scopes: parsing grants, the `allows` API the path ACL relies on, the authorize layer (missing
scope per scope class → forbidden, no identity → unauthorized) and vault binding, through the
dispatch chain; every refusal leaves the vault unchanged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.security.scopes import allows, canonical, holds, narrowing, parse_scopes
from service.types import Principal
from tests.conftest import started
from tests.sec_vault import SEC_VAULT, caller


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("read:vault write:vault", {"read:vault", "write:vault"}),
        ("  read:vault\twrite:vault/Projects/**  ", {"read:vault", "write:vault/Projects/**"}),
        (["admin", "read:vault"], {"admin", "read:vault"}),
        ("write:vault/Projects", {"write:vault/Projects/**"}),
        ("write:vault/Projects/", {"write:vault/Projects/**"}),
        ("write:vault//Projects/*.md", {"write:vault/Projects/*.md"}),
        ("openid profile", {"openid", "profile"}),
        (None, set()),
        ("", set()),
        (42, set()),
        (["read:vault", 7, None, ""], {"read:vault"}),
    ],
)
def test_parse_scopes_reads_string_and_list_claims(claim: Any, expected: set[str]) -> None:
    assert parse_scopes(claim) == expected


@pytest.mark.parametrize(
    ("grants", "required", "path", "allowed"),
    [
        ("read:vault", "read:vault", None, True),
        ("read:vault", "read:vault", "Any/Where.md", True),
        ("read:vault", "write:vault", None, False),
        ("admin", "delete:vault", "Private/x.md", True),
        ("admin", "execute:plugin", None, True),
        ("write:vault/Projects/**", "write:vault", None, True),
        ("write:vault/Projects/**", "write:vault", "Projects/a/b.md", True),
        ("write:vault/Projects/**", "write:vault", "Projects", True),
        ("write:vault/Projects/**", "write:vault", "ProjectsX/a.md", False),
        ("write:vault/Projects/**", "write:vault", "Inbox/a.md", False),
        ("write:vault/Projects/**", "read:vault", "Projects/a.md", False),
        ("write:vault/Projects/** write:vault/Inbox/**", "write:vault", "Inbox/x.md", True),
        ("write:vault/Projects/** write:vault", "write:vault", "Inbox/x.md", True),
        ("write:vault/*.md", "write:vault", "Top.md", True),
        ("write:vault/*.md", "write:vault", "Deep/Top.md", False),
        ("openid", "read:vault", None, False),
        ("admin/Projects/**", "admin", None, False),  # admin cannot be narrowed: not a grant of ours
        ("admin/Projects/**", "read:vault", "Projects/a.md", False),
        ("read:vaultx", "read:vault", None, False),
        ("execute:command", "execute:command", None, True),
        ("execute:command", "execute:plugin", None, False),
    ],
)
def test_allows_honours_folder_narrowing(grants: str, required: str, path: str | None, allowed: bool) -> None:
    assert allows(parse_scopes(grants), required, path) is allowed


def test_narrowing_and_holds_report_the_folder_globs() -> None:
    grants = parse_scopes("write:vault/Projects write:vault/Inbox/** read:vault")
    assert sorted(narrowing(grants, "write:vault") or []) == ["Inbox/**", "Projects/**"]
    assert narrowing(grants, "read:vault") is None
    assert holds(grants, "write:vault") and not holds(grants, "delete:vault")
    assert canonical("delete:vault/Old") == "delete:vault/Old/**"


# One tool per scope class, with arguments that would change the vault if the call went through.
SCOPED_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("read_note", {"path": "Welcome"}, "read:vault"),
    ("list_notes", {}, "read:vault"),
    ("create_note", {"path": "Inbox/New", "content": "x"}, "write:vault"),
    ("append_note", {"path": "Inbox/Todo", "content": "x"}, "write:vault"),
    ("move_note", {"path": "Inbox/Todo", "new_path": "Inbox/Moved"}, "write:vault"),
    ("delete_note", {"path": "Inbox/Todo"}, "delete:vault"),
    ("inspect_acl", {"path": "Inbox"}, "admin"),
]
# Grants that hold every scope except the one a call needs.
ALL_BUT = {
    "read:vault": "write:vault delete:vault execute:command execute:plugin",
    "write:vault": "read:vault delete:vault execute:command execute:plugin",
    "delete:vault": "read:vault write:vault execute:command execute:plugin",
    "admin": "read:vault write:vault delete:vault execute:command execute:plugin",
}


@pytest.mark.parametrize(("tool", "args", "scope"), SCOPED_CALLS, ids=[c[0] for c in SCOPED_CALLS])
async def test_a_missing_scope_is_forbidden_and_changes_nothing(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any], scope: str
) -> None:
    async with started(make_vault(SEC_VAULT)) as vg:
        before = vg.snapshot()
        vg.principal = caller(ALL_BUT[scope])
        error = await vg.err(tool, "forbidden", **args)
        assert error["details"]["required"] == [scope]
        assert vg.snapshot() == before


@pytest.mark.parametrize(("tool", "args", "scope"), SCOPED_CALLS, ids=[c[0] for c in SCOPED_CALLS])
async def test_no_identity_on_a_scoped_tool_is_unauthorized(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any], scope: str
) -> None:
    async with started(make_vault(SEC_VAULT)) as vg:
        before = vg.snapshot()
        vg.principal = Principal(subject="anonymous", scopes=frozenset(), authenticated=False)
        error = await vg.err(tool, "unauthorized", **args)
        assert error["details"]["required"] == [scope]
        assert vg.snapshot() == before


async def test_a_narrowed_write_scope_confines_writes_to_its_folder(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(SEC_VAULT)) as vg:
        vg.principal = caller("read:vault write:vault/Inbox/**")
        before = vg.snapshot()
        refused = [
            ("Projects/Sneaky", "acl_denied"),
            ("Welcome2", "acl_denied"),
            ("InboxX/Note", "acl_denied"),
            ("Inbox/../Projects/Evil", "path_invalid"),
        ]
        for path, code in refused:
            result = await vg.call("create_note", path=path, content="x")
            assert result.error_code == code, path
        assert vg.snapshot() == before
        await vg.ok("create_note", path="Inbox/Allowed", content="ok\n")
        assert vg.read("Inbox/Allowed.md") == "ok\n"


async def test_vault_binding_confines_the_token(make_vault: Callable[..., Path]) -> None:
    main = make_vault(SEC_VAULT)
    second = make_vault({"Other.md": "# Other\n"})
    vaults = [{"id": "main", "path": str(main)}, {"id": "second", "path": str(second)}]
    async with started(main, vaults=vaults) as vg:
        before = vg.snapshot()
        vg.principal = caller("read:vault write:vault", vault="second")
        assert (await vg.ok("read_note", path="Other"))["title"] == "Other"  # the bound vault is the default
        error = await vg.err("create_note", "forbidden", path="Inbox/X", content="x", vault="main")
        assert error["details"]["bound_vault"] == "second"
        vg.principal = caller("read:vault write:vault")  # no vault claim on a multi-vault server
        await vg.ok("read_note", path="Welcome")
        await vg.err("read_note", "forbidden", path="Other", vault="second")
        vg.principal = Principal.local("stdio")  # local callers are not bound
        await vg.ok("read_note", path="Other", vault="second")
        assert vg.snapshot() == before
