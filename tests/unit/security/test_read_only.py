"""The read-only kill switch: every mutating tool is refused before it runs (`forbidden` with
`details.read_only`), read tools keep working, and the guard itself answers `read_only_mode`
for write/delete path operations."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from service.dispatch.acl_gate import AclGate
from service.dispatch.context import CallContext, ToolResult
from service.dispatch.preview import WritePreview
from service.errors import AclDenied, Forbidden, ReadOnlyMode
from service.settings import load_settings
from service.types import Principal
from tests.conftest import Harness, started
from tests.sec_vault import SEC_VAULT

# One valid call per vault-writing tool (valid, so validation passes and the acl layer decides).
WRITES: dict[str, dict[str, Any]] = {
    "create_note": {"path": "Inbox/New", "content": "x"},
    "write_note": {"path": "Inbox/Todo", "content": "x", "mode": "overwrite"},
    "append_note": {"path": "Inbox/Todo", "content": "x"},
    "prepend_note": {"path": "Inbox/Todo", "content": "x"},
    "patch_note": {"path": "Inbox/Todo", "heading": ["Todo"], "content": "x"},
    "delete_note": {"path": "Inbox/Todo"},
    "copy_note": {"path": "Inbox/Todo", "new_path": "Inbox/Copy"},
    "create_folder": {"path": "Inbox/Sub"},
    "bulk_create_notes": {"notes": [{"path": "Inbox/A", "content": "a"}]},
    "move_note": {"path": "Inbox/Todo", "new_path": "Projects/Todo"},
    "rename_note": {"path": "Inbox/Todo", "new_path": "Inbox/Done"},
    "rewrite_links": {"old_target": "Plan", "new_target": "Plan2", "dry_run": False},
    "set_properties": {"path": "Inbox/Todo", "properties": {"a": 1}},
    "delete_property": {"path": "Projects/Plan", "key": "status"},
    "add_tags": {"path": "Inbox/Todo", "tags": ["x"]},
    "remove_tags": {"path": "Inbox/Todo", "tags": ["inbox"]},
    "rename_tag": {"old": "project", "new": "proj", "dry_run": False},
}
# Calls that would otherwise stop at a later layer: read-only must win before any of them.
BEFORE_LATER_LAYERS: list[tuple[str, dict[str, Any]]] = [
    ("delete_note", {"path": "Inbox/Todo", "permanent": True}),  # destructive: would ask for a confirmation
    ("move_note", {"path": "Inbox/Todo", "new_path": "Projects/Todo", "dry_run": True}),
    ("create_note", {"path": "Inbox/New", "content": "x", "idempotency_key": "k-1"}),
    ("write_note", {"path": "Private/Diary", "content": "x", "mode": "overwrite", "expected_etag": "0"}),
]


@pytest.fixture
async def frozen(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(SEC_VAULT), acl={"read_only": True}) as vg:
        await vg.indexed()
        yield vg


@pytest.mark.parametrize("tool", sorted(WRITES))
async def test_vault_writing_tools_are_forbidden(frozen: Harness, tool: str) -> None:
    before = frozen.snapshot()
    error = await frozen.err(tool, "forbidden", **WRITES[tool])
    assert error["details"] == {"vault": "main", "tool": tool, "read_only": True}
    assert "read-only" in error["message"]
    assert frozen.snapshot() == before


@pytest.mark.parametrize(("tool", "args"), BEFORE_LATER_LAYERS, ids=[t for t, _ in BEFORE_LATER_LAYERS])
async def test_read_only_wins_over_confirmation_idempotency_and_conflicts(
    frozen: Harness, tool: str, args: dict[str, Any]
) -> None:
    before = frozen.snapshot()
    error = await frozen.err(tool, "forbidden", **args)
    assert error["details"]["read_only"] is True
    assert frozen.snapshot() == before


async def test_every_registered_vault_writing_tool_is_stopped_by_the_gate(frozen: Harness) -> None:
    """Registry-wide: tools added later are covered too, without hand-written arguments."""
    gate = AclGate(
        frozen.app.guard.is_read_only,
        WritePreview(frozen.app.guard, lambda call: call.tool_context(frozen.app.services)),
        lambda call, rel: call.tool_context(frozen.app.services).can_read(rel),
    )
    vault = frozen.app.vaults["main"]
    reached: list[str] = []

    async def handler(call: CallContext) -> ToolResult:
        reached.append(call.tool)
        return ToolResult(structured={}, text="")

    refused: list[str] = []
    for spec in frozen.app.registry:
        call = CallContext(spec.name, {}, Principal.local(), "inproc", spec=spec, vault=vault)
        try:
            await gate(call, handler)
        except Forbidden as exc:
            assert exc.details["read_only"] is True
            refused.append(spec.name)
    assert set(WRITES) | {"reindex"} <= set(refused)
    # Facade tools (call_capability, domain_*) pass here: the tool they run meets this gate itself.
    assert set(refused) == {spec.name for spec in frozen.app.registry if spec.mutating and "facade" not in spec.tags}
    assert {"read_note", "list_notes", "search_text", "inspect_acl"} <= set(reached)
    assert not set(refused) & set(reached)


async def test_reads_still_work(frozen: Harness) -> None:
    before = frozen.snapshot()
    assert (await frozen.ok("read_note", path="Inbox/Todo"))["title"] == "Todo"
    assert len((await frozen.ok("list_notes"))["items"]) == 6
    assert (await frozen.ok("search_text", query="zebra"))["items"]
    await frozen.err("reindex", "forbidden", mode="sync", wait=True)
    decision = await frozen.ok("inspect_acl", path="Inbox/Todo.md", op="delete")
    assert (decision["allowed"], decision["rule"], decision["code"]) == (False, "read_only", "read_only_mode")
    assert frozen.snapshot() == before


async def test_the_guard_answers_read_only_mode_for_path_writes(frozen: Harness) -> None:
    guard, vault = frozen.app.services.guard, frozen.app.vaults["main"]
    me = Principal.local()
    guard.check(me, vault, "Inbox/Todo.md", "read")
    for op in ("write", "delete"):
        with pytest.raises(ReadOnlyMode) as caught:
            guard.check(me, vault, "Inbox/Todo.md", op)
        assert caught.value.details == {"path": "Inbox/Todo.md", "op": op, "rule": "read_only", "vault": "main"}
        assert not guard.allows(me, vault, "Inbox/Todo.md", op)
    with pytest.raises(AclDenied):  # the hard deny still decides first
        guard.check(me, vault, ".obsidian/app.json", "write")


async def test_one_vault_read_only_the_other_writable(make_vault: Callable[..., Path]) -> None:
    main, frozen = make_vault(SEC_VAULT), make_vault({"Kept.md": "# Kept\n"})
    vaults = [{"id": "main", "path": str(main)}, {"id": "frozen", "path": str(frozen), "acl": {"read_only": True}}]
    async with started(main, vaults=vaults) as vg:
        error = await vg.err("create_note", "forbidden", path="x", content="y", vault="frozen")
        assert error["details"]["vault"] == "frozen"
        assert not (frozen / "x.md").exists()
        assert (await vg.ok("create_note", path="x", content="y"))["path"] == "x.md"
        assert (await vg.ok("read_note", path="Kept", vault="frozen"))["title"] == "Kept"


async def test_read_only_from_the_environment(make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_vault(SEC_VAULT)
    monkeypatch.setenv("VAULTGATE_ACL__READ_ONLY", "true")
    assert load_settings(root).acl.read_only is True
    async with started(root) as vg:
        before = vg.snapshot()
        await vg.err("append_note", "forbidden", path="Inbox/Todo", content="x")
        assert vg.snapshot() == before
