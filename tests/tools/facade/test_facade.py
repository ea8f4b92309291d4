"""Tool visibility and the facade modes, through the dispatch chain and over HTTP."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from service.tools.registry import DOMAINS
from tests.conftest import e2e, started

VAULT = {"A.md": "# A\n\nalpha\n", "B.md": "# B\n"}


@pytest.mark.covers("describe_capability", "success")
@pytest.mark.covers("describe_capability", "failure")
@pytest.mark.covers("call_capability", "success")
@pytest.mark.covers("call_capability", "failure")
async def test_triad_finds_describes_and_calls_through_the_chain(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), tool_facade={"mode": "triad"}) as vg:
        await vg.indexed()
        advertised = [s.name for s in vg.app.dispatcher.listed()]
        assert advertised == ["find_capability", "describe_capability", "call_capability"]
        found = await vg.ok("find_capability", query="rename a tag everywhere")
        assert found["items"][0]["name"] == "rename_tag"
        moved = await vg.ok("find_capability", query="move note and fix links")
        assert "move_note" in [i["name"] for i in moved["items"][:3]]
        described = await vg.ok("describe_capability", name="search_text")
        assert "query" in described["input_schema"]["properties"] and described["mutating"] is False
        out = await vg.ok("call_capability", name="search_text", arguments={"query": "alpha"})
        assert out["tool"] == "search_text" and [i["path"] for i in out["result"]["items"]] == ["A.md"]
        # the inner tool's checks and errors are the facade call's
        error = await vg.err(
            "call_capability", "elicit_required", name="delete_note", arguments={"path": "A", "permanent": True}
        )
        token = await vg.token_for("delete_note", path="A", permanent=True)
        assert error["details"]["tool"] == "delete_note"
        await vg.ok(
            "call_capability", name="delete_note", arguments={"path": "A", "permanent": True}, elicit_token=token
        )
        assert not (vg.root / "A.md").exists()
        await vg.err("call_capability", "validation_error", name="read_note", arguments={"nope": 1})
        await vg.err("call_capability", "not_found", name="no_such_tool")
        await vg.err("describe_capability", "not_found", name="no_such_tool")
        # every tool stays callable by its own name
        assert (await vg.ok("read_note", path="B"))["title"] == "B"


@pytest.mark.covers("notes", "success")
@pytest.mark.covers("graph", "success")
@pytest.mark.covers("properties", "success")
@pytest.mark.covers("search", "success")
@pytest.mark.covers("index", "success")
@pytest.mark.covers("admin", "success")
@pytest.mark.covers("bundles", "success")
@pytest.mark.covers("notes", "failure")
async def test_domain_mode_has_one_meta_tool_per_domain(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), tool_facade={"mode": "domain"}) as vg:
        advertised = {s.name for s in vg.app.dispatcher.listed()}
        assert advertised == set(DOMAINS)
        assert "read_note" not in advertised and "find_capability" not in advertised
        out = await vg.ok("notes", operation="read_note", arguments={"path": "B"})
        assert out["result"]["title"] == "B"
        await vg.err("notes", "validation_error", operation="search_text", arguments={"query": "x"})
        await vg.indexed()
        checks = [
            ("search", "search_text", {"query": "alpha"}),
            ("graph", "find_orphans", {}),
            ("graph", "rewrite_links", {"old_target": "A", "new_target": "B"}),
            ("notes", "move_note", {"path": "B", "new_path": "Sub/B", "dry_run": True}),
            ("properties", "get_properties", {"path": "B"}),
            ("properties", "list_tags", {}),
            ("bundles", "bundle_files", {"paths": ["B"]}),
            ("index", "index_status", {}),
            ("admin", "list_vaults", {}),
            ("admin", "inspect_acl", {"path": "A"}),
            ("sessions", "end_session", {}),
        ]
        for meta, operation, arguments in checks:
            result = await vg.call(meta, operation=operation, arguments=arguments)
            assert result.structured is not None
            if result.is_error:  # e.g. end_session without a session: the inner tool's own error
                assert operation == "end_session", (meta, result.structured)
                assert result.structured["error"]["code"] != "validation_error", (meta, result.structured)
            else:
                assert result.structured["tool"] == operation


async def test_visibility_hidden_disabled_allowed_and_read_only(make_vault: Callable[..., Path]) -> None:
    cfg = {"hidden": ["list_folders"], "disabled": ["delete_note", "graph"]}
    flat = {"mode": "flat"}
    async with started(make_vault(VAULT), tool_visibility=cfg, tool_facade=flat) as vg:
        advertised = {s.name for s in vg.app.dispatcher.listed()}
        assert "list_folders" not in advertised and "delete_note" not in advertised
        assert "get_backlinks" not in advertised  # disabled by domain
        assert (await vg.ok("list_folders"))["items"] == []  # hidden: still callable
        before = vg.snapshot()
        missing = await vg.err("delete_note", "not_found", path="A")
        unknown = await vg.err("no_such_tool", "not_found")
        assert missing["message"].replace("delete_note", "X") == unknown["message"].replace("no_such_tool", "X")
        assert vg.snapshot() == before
        found = await vg.ok("find_capability", query="delete a note")
        assert "delete_note" not in [i["name"] for i in found["items"]]
        await vg.err("call_capability", "not_found", name="delete_note", arguments={"path": "A"})
    async with started(make_vault(VAULT), tool_visibility={"allowed": ["search", "read_note"]}, tool_facade=flat) as vg:
        assert {s.name for s in vg.app.dispatcher.listed()} >= {"search_text", "read_note"}
        await vg.err("write_note", "not_found", path="A", content="x", mode="overwrite")
    async with started(make_vault(VAULT), tool_visibility={"require_read_only": True}, tool_facade=flat) as vg:
        assert not [s.name for s in vg.app.dispatcher.listed() if s.mutating]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_tool_facade_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), tool_facade={"mode": "triad"}) as (url, _), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        names = [t.name for t in (await c.list_tools()).tools]
        assert names == ["find_capability", "describe_capability", "call_capability"]
        out = await c.call_tool("find_capability", {"query": "full text search"})
        assert out.structured_content is not None and out.structured_content["items"]
        direct = await c.call_tool("read_note", {"path": "A"})
        assert not direct.is_error


async def test_tool_facade_flag_on_stdio(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "service", "stdio", str(root), "--tool-facade", "domain"]
    )
    async with Client(params, mode="legacy") as c:
        names = {t.name for t in (await c.list_tools()).tools}
        assert "notes" in names and "read_note" not in names


def _modern_request(elicitation: bool = True) -> Any:
    from types import SimpleNamespace

    import mcp_types as types
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    caps = types.ClientCapabilities(elicitation=types.ElicitationCapability() if elicitation else None)
    session = SimpleNamespace(protocol_version=MODERN_PROTOCOL_VERSIONS[0], client_capabilities=caps)
    return SimpleNamespace(session=session, request_id=1)


def _answer(action: str) -> dict[str, Any]:
    import mcp_types as types

    return {"vaultgate_confirm": types.ElicitResult(action=action, content={"confirm": True})}


FACADE_CALLS = [
    ("call_capability", lambda path: {"name": "delete_note", "arguments": {"path": path, "permanent": True}}),
    ("notes", lambda path: {"operation": "delete_note", "arguments": {"path": path, "permanent": True}}),
]


@pytest.mark.parametrize(("meta", "args_of"), FACADE_CALLS)
async def test_facade_passes_on_the_inner_calls_input_request(
    make_vault: Callable[..., Path], meta: str, args_of: Callable[[str], dict[str, Any]]
) -> None:
    async with started(make_vault(VAULT)) as vg:
        call, request = vg.app.dispatcher.call, _modern_request()
        first = await call(meta, args_of("A"), principal=vg.principal, request=request)
        assert first.input_required is not None and not first.is_error  # not a bogus success
        assert (vg.root / "A.md").exists()
        state = first.input_required.request_state
        declined = await call(
            meta, args_of("A"), principal=vg.principal, request=request,
            input_responses=_answer("decline"), request_state=state,
        )  # fmt: skip
        assert declined.error_code == "forbidden" and (vg.root / "A.md").exists()
        again = await call(meta, args_of("A"), principal=vg.principal, request=request)
        state = again.input_required.request_state
        done = await call(
            meta, args_of("A"), principal=vg.principal, request=request,
            input_responses=_answer("accept"), request_state=state,
        )  # fmt: skip
        assert not done.is_error and done.structured is not None, done.structured
        assert done.structured["tool"] == "delete_note" and not (vg.root / "A.md").exists()
        # without elicitation support: elicit_required, nothing changed
        plain = await call(meta, args_of("B"), principal=vg.principal, request=_modern_request(elicitation=False))
        assert plain.error_code == "elicit_required" and (vg.root / "B.md").exists()


@pytest.mark.parametrize(("meta", "args_of"), FACADE_CALLS)
async def test_facade_confirmation_over_http_in_both_eras(
    make_vault: Callable[..., Path], mode: str, meta: str, args_of: Callable[[str], dict[str, Any]]
) -> None:
    from tests.e2e.test_policy_e2e import answering

    async with e2e(make_vault({**VAULT, "C.md": "c\n"})) as (url, harness):
        yes = answering("accept")
        async with Client(url, mode=mode, elicitation_callback=yes) as client:  # type: ignore[arg-type]
            out = await client.call_tool(meta, args_of("A"))
            assert not out.is_error, out.structured_content
            assert out.structured_content is not None and out.structured_content["tool"] == "delete_note"
        assert yes.asked and "permanently delete A.md" in yes.asked[0]  # type: ignore[attr-defined]
        assert not (harness.root / "A.md").exists()
        before = harness.snapshot()
        no = answering("decline")
        async with Client(url, mode=mode, elicitation_callback=no) as client:  # type: ignore[arg-type]
            out = await client.call_tool(meta, args_of("B"))
            assert out.is_error and out.structured_content is not None
            assert out.structured_content["error"]["details"]["reason"] == "declined"
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            out = await client.call_tool(meta, args_of("C"))
            assert out.structured_content is not None
            assert out.structured_content["error"]["code"] == "elicit_required"
        assert harness.snapshot() == before


async def test_facade_tools_advertise_what_the_tools_behind_them_may_do(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), tool_facade={"mode": "domain"}) as vg:
        hints = {s.name: s.annotations() for s in vg.app.dispatcher.listed()}
        assert hints["notes"].destructive_hint is True  # delete_note, write_note's overwrite
        assert hints["search"].read_only_hint is True and hints["search"].destructive_hint is None
        described = await vg.ok("describe_capability", name="delete_note")
        assert described["destructive"] is True and described["mutating"] is True
        assert (await vg.ok("describe_capability", name="append_note"))["destructive"] is False
    async with started(make_vault(VAULT), tool_facade={"mode": "triad"}) as vg:
        hints = {s.name: s.annotations() for s in vg.app.dispatcher.listed()}
        assert hints["call_capability"].destructive_hint is True
        assert hints["find_capability"].read_only_hint is True


@pytest.mark.covers("find_capability", "success")
async def test_find_capability_answers_questions_typed_as_sentences(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), tool_facade={"mode": "triad"}) as vg:
        asked = {
            "how do I rename a tag everywhere in my vault?": "rename_tag",
            "what is the health of the server": "server_health",
            "how do I move a note to another folder": "move_note",
        }
        for question, tool in asked.items():
            found = await vg.ok("find_capability", query=question)
            assert found["items"][0]["name"] == tool, (question, found["items"][:3])
        # "do", "I", "what", "my" would otherwise pull in read_notes / search_notes by prefix.
        props = await vg.ok("find_capability", query="can I undo what I did to my properties")
        # undo_last_plan (undoing a plan's changes) is a fair answer to "undo" too.
        wanted = [i["name"] for i in props["items"][:4] if i["name"] != "undo_last_plan"][:3]
        assert all("propert" in name for name in wanted), props["items"][:4]
        only_stop = await vg.ok("find_capability", query="what is this")
        assert only_stop["items"]  # a query of stop words only is still searched
