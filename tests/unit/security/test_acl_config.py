"""ACL configuration by its exact TOML and environment names: the root `[acl]` block, per-vault
`[[vaults]]` → `acl` blocks replacing it, and refusals of misspelled or invalid settings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.errors import ConfigError
from service.security.acl import AclGuard
from service.settings import load_settings
from service.types import Principal
from tests.conftest import started
from tests.sec_vault import SEC_VAULT, caller

CONFIG = """
[acl]
read_only = false
default_deny = true
read_paths = ["Inbox/**", "Projects/**"]
write_paths = ["Inbox/**"]
delete_paths = []

[[acl.prefix_rules]]
path = "Private"
read = "deny"
write = "deny"

[[acl.prefix_rules]]
path = "Projects/Drafts"
write = "allow"

[[vaults]]
id = "main"
path = "{main}"

[[vaults]]
id = "archive"
path = "{archive}"

[vaults.acl]
read_only = true

[[vaults.acl.prefix_rules]]
path = "Sealed"
read = "deny"
"""


def write_config(tmp_path: Path, main: Path, archive: Path, text: str = CONFIG) -> Path:
    config = tmp_path / "vaultgate.toml"
    config.write_text(text.format(main=main, archive=archive), encoding="utf-8")
    return config


def test_toml_names_build_the_documented_rules(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    settings = load_settings(write_config(tmp_path, make_vault(SEC_VAULT), make_vault({"Sealed/x.md": "x\n"})))
    assert settings.acl.default_deny and settings.acl.read_paths == ["Inbox/**", "Projects/**"]
    assert settings.acl.delete_paths == [] and len(settings.acl.prefix_rules) == 2
    guard, me = AclGuard(settings), caller("read:vault write:vault delete:vault")
    expected = [
        ("main", "Inbox/Todo.md", "write", True, "write_paths"),
        ("main", "Projects/Plan.md", "read", True, "read_paths"),
        ("main", "Projects/Plan.md", "write", False, "write_paths: no glob matches"),
        ("main", "Projects/Drafts/d.md", "write", True, "prefix_rules: Projects/Drafts write=allow"),
        ("main", "Private/Diary.md", "read", False, "prefix_rules: Private read=deny"),
        ("main", "Welcome.md", "read", False, "read_paths: no glob matches"),
        ("main", "Inbox/Todo.md", "delete", False, "delete_paths: no glob matches"),
        # the archive's own block replaces the root one entirely (no default_deny, no allowlists)
        ("archive", "Welcome.md", "read", True, "default allow"),
        ("archive", "Sealed/x.md", "read", False, "prefix_rules: Sealed read=deny"),
        ("archive", "Open.md", "write", False, "read_only"),
    ]
    got = [(v, p, op, *_pair(guard, me, v, p, op)) for v, p, op, _, _ in expected]
    assert got == expected


def _pair(guard: AclGuard, me: Principal, vault: str, path: str, op: str) -> tuple[bool, str]:
    decision = guard.decide(me, vault, path, op)
    return decision.allowed, decision.rule


async def test_toml_config_is_enforced_through_the_chain(make_vault: Callable[..., Path], tmp_path: Path) -> None:
    main, archive = make_vault(SEC_VAULT), make_vault({"Sealed/x.md": "x\n", "Open.md": "# Open\n"})
    settings_file = write_config(tmp_path, main, archive)
    async with started(settings_file) as vg:
        before = vg.snapshot()
        await vg.err("read_note", "acl_denied", path="Private/Diary")
        await vg.err("create_note", "forbidden", path="New", content="x", vault="archive")
        await vg.err("read_note", "acl_denied", path="Sealed/x.md", vault="archive")
        assert (await vg.ok("read_note", path="Open", vault="archive"))["title"] == "Open"
        assert vg.snapshot() == before


def test_environment_names(make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULTGATE_ACL__DEFAULT_DENY", "true")
    monkeypatch.setenv("VAULTGATE_ACL__READ_PATHS", '["Inbox/**"]')
    monkeypatch.setenv("VAULTGATE_ACL__PREFIX_RULES", '[{"path": "Inbox/Secret", "read": "deny"}]')
    settings = load_settings(make_vault(SEC_VAULT))
    guard, me = AclGuard(settings), caller("read:vault")
    assert guard.decide(me, "main", "Inbox/Todo.md", "read").allowed
    assert not guard.decide(me, "main", "Inbox/Secret/x.md", "read").allowed
    assert not guard.decide(me, "main", "Projects/Plan.md", "read").allowed


@pytest.mark.parametrize(
    "block",
    [
        "[acl]\nreadonly = true\n",  # misspelled key
        '[acl]\nread_paths = "Inbox/**"\n',  # a string where a list is expected
        '[[acl.prefix_rules]]\npath = "Private"\nread = "maybe"\n',
        '[[acl.prefix_rules]]\nread = "deny"\n',  # no path
    ],
)
def test_invalid_acl_settings_are_config_errors(make_vault: Callable[..., Path], tmp_path: Path, block: str) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(f'{block}\n[[vaults]]\nid = "main"\npath = "{make_vault(SEC_VAULT)}"\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        load_settings(config)
