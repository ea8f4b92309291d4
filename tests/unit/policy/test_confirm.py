"""The confirmation gate: elicit_required, single-use tokens bound to one call, the CLI, floors."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import Field

from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec
from tests.conftest import Harness, started

VAULT = {"A.md": "# A\n\nkeep me\n", "B.md": "# B\n\nme too\n", "Folder/C.md": "c\n"}


async def _pending_token(vg: Harness, tool: str, **args: Any) -> tuple[str, dict[str, Any]]:
    error = await vg.err(tool, "elicit_required", **args)
    store = vg.app.services.confirmations
    [request] = await store.pending(error["details"]["args_hash"], "main")
    token, _ = await store.mint(request, minted_by="test")
    return token, error


async def test_a_risky_call_answers_elicit_required_and_changes_nothing(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        before = vg.snapshot()
        error = await vg.err("delete_note", "elicit_required", path="A", permanent=True)
        details = error["details"]
        assert set(details) >= {"args_hash", "tool", "vault", "preview", "expires_at", "confirm_with"}
        assert details["tool"] == "delete_note" and "permanently delete A.md" in details["preview"]
        assert details["args_hash"] in error["hint"]
        assert vg.snapshot() == before
        # safe variants need nobody
        await vg.ok("delete_note", path="B")  # to .trash, recoverable


async def test_a_token_works_once_and_only_for_its_own_call(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        token, _ = await _pending_token(vg, "delete_note", path="A", permanent=True)
        before = vg.snapshot()
        wrong = await vg.err("delete_note", "elicit_required", path="B", permanent=True, elicit_token=token)
        assert "another call" in wrong["details"]["reason"]
        bogus = await vg.err("delete_note", "elicit_required", path="A", permanent=True, elicit_token="x" * 32)
        assert bogus["details"]["reason"]
        assert vg.snapshot() == before
        await vg.ok("delete_note", path="A", permanent=True, elicit_token=token)
        assert not (vg.root / "A.md").exists()
        await vg.ok("create_note", path="A", content="again\n")
        reused = await vg.err("delete_note", "elicit_required", path="A", permanent=True, elicit_token=token)
        assert reused["details"]["reason"] and (vg.root / "A.md").exists()


async def test_a_token_cannot_be_spent_twice_concurrently(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        args = {"path": "A", "content": "replaced\n", "mode": "overwrite"}
        token, _ = await _pending_token(vg, "write_note", **args)
        results = await asyncio.gather(*(vg.call("write_note", **args, elicit_token=token) for _ in range(6)))
        codes = sorted(r.error_code or "ok" for r in results)
        assert codes == ["elicit_required"] * 5 + ["ok"]
        store = vg.app.services.confirmations
        token2, asked = await _pending_token(vg, "write_note", path="B", content="x\n", mode="overwrite")
        preview = asked["details"]["preview"]
        spent = await asyncio.gather(
            *(
                store.consume(token2, "main", "write_note", _hash(vg, "write_note", path="B", content="x\n"), preview)
                for _ in range(10)
            )
        )
        assert spent.count("spent") == 1 and spent.count("refused") == 9


def _hash(vg: Harness, tool: str, **args: Any) -> str:
    from service.dispatch.args_hash import args_hash

    return args_hash(tool, {**args, "mode": "overwrite"})


async def test_configured_floors_add_confirmation_never_remove_it(make_vault: Callable[..., Path]) -> None:
    cfg = {"tools": ["append_note"], "scope_floors": ["delete:vault"]}
    async with started(make_vault(VAULT), confirmation=cfg) as vg:
        await vg.err("append_note", "elicit_required", path="A", content="x")
        await vg.err("delete_note", "elicit_required", path="B")  # delete:vault floored by config
        await vg.confirmed("append_note", path="A", content="x\n")
        assert vg.read("A.md").endswith("x\n")
        await vg.ok("create_note", path="New", content="fine\n")


async def test_the_cli_mints_a_token_a_retry_accepts(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root) as vg:
        error = await vg.err("move_note", "elicit_required", path="A", new_path="Folder/A")
        argv = [sys.executable, "-m", "service", "confirm", error["details"]["args_hash"], str(root)]
        done = await asyncio.to_thread(subprocess.run, argv, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "move_note" in done.stdout and "Folder/A.md" in done.stdout
        token = done.stdout.split()[-1]
        out = await vg.ok("move_note", path="A", new_path="Folder/A", elicit_token=token)
        assert out["path"] == "Folder/A.md" and (root / "Folder" / "A.md").exists()
        again = await asyncio.to_thread(subprocess.run, argv, capture_output=True, text=True, timeout=60)
        assert again.returncode == 1 and "no pending call" in again.stderr


async def _no_requests(vg: Harness) -> None:
    assert await vg.app.services.state.fetchall("SELECT * FROM confirmation_requests", ()) == []


async def test_calls_that_must_fail_answer_before_asking_a_human(make_vault: Callable[..., Path]) -> None:
    vault = {**VAULT, "Folder/Taken.md": "t\n", "Notes/N.md": "#old here\n"}
    vault["Locked/L.md"] = "read-only here\n"
    acl = {"prefix_rules": [{"path": "Locked", "write": "deny"}]}
    async with started(make_vault(vault), acl=acl) as vg:
        before = vg.snapshot()
        await vg.err("delete_note", "note_not_found", path="Missing", permanent=True)
        await vg.err("delete_note", "conflict", path="A", permanent=True, expected_etag="nope")
        await vg.err("delete_note", "acl_denied", path="Locked/L", permanent=True)
        await vg.err("move_note", "note_not_found", path="Missing", new_path="Folder/X")
        await vg.err("move_note", "already_exists", path="A", new_path="Folder/Taken")
        await vg.err("rename_note", "already_exists", path="Folder/C", new_path="Taken")
        await vg.err("move_note", "conflict", path="A", new_path="Folder/A", expected_etag="nope")
        await vg.err("move_note", "acl_denied", path="A", new_path="Locked/A")
        await vg.err("move_note", "acl_denied", path="Locked/L", new_path="Folder/L")
        await vg.err("rewrite_links", "note_not_found", old_target="A", new_target="Nowhere", dry_run=False)
        await vg.err("rewrite_links", "path_invalid", old_target="A", new_target="A", dry_run=False)
        await vg.err("rename_tag", "validation_error", old="old", new="old", dry_run=False)
        await vg.err("rename_tag", "validation_error", old="old", new="bad tag!", dry_run=False)
        await _no_requests(vg)
        assert vg.snapshot() == before
        # the same tools still ask when the call can succeed
        await vg.err("delete_note", "elicit_required", path="A", permanent=True)
        await vg.err("move_note", "elicit_required", path="A", new_path="Folder/A")


async def test_reset_vault_cache_refuses_before_asking_while_a_reindex_runs(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        jobs = vg.app.services.index_jobs
        jobs.active = lambda vault_id: object()  # a reindex is running
        error = await vg.err("reset_vault_cache", "conflict")
        assert "reindex" in error["message"]
        await _no_requests(vg)


async def test_input_required_answers_need_our_sealed_request_state(make_vault: Callable[..., Path]) -> None:
    from types import SimpleNamespace

    import mcp_types as types
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    session = SimpleNamespace(
        protocol_version=MODERN_PROTOCOL_VERSIONS[0],
        client_capabilities=types.ClientCapabilities(elicitation=types.ElicitationCapability()),
    )
    request = SimpleNamespace(session=session, request_id=1)
    yes = {"vaultgate_confirm": types.ElicitResult(action="accept", content={"confirm": True})}
    async with started(make_vault(VAULT)) as vg:
        call = vg.app.dispatcher.call
        args = {"path": "A", "permanent": True}
        first = await call("delete_note", args, principal=vg.principal, request=request)
        assert first.input_required is not None and (vg.root / "A.md").exists()
        state = first.input_required.request_state
        forged = await call(
            "delete_note",
            args,
            principal=vg.principal,
            request=request,
            input_responses=yes,
            request_state="9" * 10 + ".x",
        )
        assert forged.input_required is not None and (vg.root / "A.md").exists()  # asked again, nothing done
        other = await call(
            "delete_note", {"path": "B", "permanent": True}, principal=vg.principal, request=request,
            input_responses=yes, request_state=state,
        )  # fmt: skip
        assert other.input_required is not None and (vg.root / "B.md").exists()  # state bound to A's call
        done = await call(
            "delete_note", args, principal=vg.principal, request=request, input_responses=yes, request_state=state
        )
        assert not done.is_error and not (vg.root / "A.md").exists()
        # the approval is single use: replaying the approved retry asks again
        await vg.ok("create_note", path="A", content="again\n")
        replay = await call(
            "delete_note", args, principal=vg.principal, request=request, input_responses=yes, request_state=state
        )
        assert replay.input_required is not None and (vg.root / "A.md").exists()


async def test_confirmation_enabled_false_drops_only_config_added_floors(make_vault: Callable[..., Path]) -> None:
    cfg = {"enabled": False, "tools": ["append_note"], "scope_floors": ["delete:vault"]}
    async with started(make_vault(VAULT), confirmation=cfg) as vg:
        before = vg.snapshot()
        await vg.err("delete_note", "elicit_required", path="A", permanent=True)  # the tool's own condition
        await vg.err("reset_vault_cache", "elicit_required")  # destructive tool
        await vg.err("move_note", "elicit_required", path="A", new_path="Folder/A")  # cross-folder move
        assert vg.snapshot() == before
        await vg.ok("append_note", path="A", content="x\n")  # config-added tool: switched off
        await vg.ok("delete_note", path="B")  # config-added delete:vault floor: switched off


class _ExecIn(ToolInput):
    command: str = Field(description="Command id.")


class _ExecOut(ToolOutput):
    ran: str = Field(description="What ran.")


def _exec_spec(name: str, scope: str, ran: list[str]) -> ToolSpec:
    async def handler(ctx: Any, args: _ExecIn) -> _ExecOut:
        ran.append(args.command)
        return _ExecOut(ran=args.command)

    return ToolSpec(
        name, "test", f"Run via {scope}", f"A test tool needing {scope}.", _ExecIn, _ExecOut, handler,
        scopes=(scope,), scope_class="execute", mutating=True, idempotent=False,
    )  # fmt: skip


async def test_builtin_execute_scope_floors_always_need_a_human(make_vault: Callable[..., Path]) -> None:
    for enabled in (True, False):
        async with started(make_vault(VAULT), confirmation={"enabled": enabled}) as vg:
            ran: list[str] = []
            registry = vg.app.registry
            registry.add(_exec_spec("run_command", "execute:command", ran))
            registry.add(_exec_spec("run_plugin", "execute:plugin", ran))
            for tool in ("run_command", "run_plugin"):
                error = await vg.err(tool, "elicit_required", command="reindex")
                assert "execute:" in error["details"]["preview"]
                assert ran == []
            out = await vg.confirmed("run_command", command="reindex")
            assert out["ran"] == "reindex" and ran == ["reindex"]
            await vg.confirmed("run_plugin", command="dataview")
            assert ran == ["reindex", "dataview"]
