"""POST /admin/confirm over real HTTP: refused without authentication unless explicitly enabled
for loopback, admin scope required, the token's vault binding respected; `all_vaults` of the
telemetry tools respects the binding too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest
from mcp.shared._httpx_utils import create_mcp_http_client

from service.types import ALL_SCOPES, Principal
from tests.conftest import e2e, started
from tests.keys import SECRET, claims, hs

VAULT = {"A.md": "# A\n\nkeep me\n", "B.md": "# B\n"}
ARGS = {"path": "A", "content": "new\n", "mode": "overwrite"}


async def _pending(harness: object) -> str:
    error = await harness.err("write_note", "elicit_required", **ARGS)  # type: ignore[attr-defined]
    return str(error["details"]["args_hash"])


async def test_without_auth_the_endpoint_is_refused_unless_enabled(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness):
        args_hash = await _pending(harness)
        base = url.rsplit("/mcp", 1)[0]
        async with create_mcp_http_client() as http:
            refused = await http.post(f"{base}/admin/confirm", json={"args_hash": args_hash})
        assert refused.status_code == 403
        assert "vaultgate confirm" in refused.json()["error_description"]
        assert await harness.app.services.state.fetchall("SELECT * FROM confirmation_tokens", ()) == []


async def test_jwt_admin_mints_a_single_use_token_respecting_the_vault_binding(
    make_vault: Callable[..., Path],
) -> None:
    root, other = make_vault(VAULT), make_vault({"Other.md": "o\n"})
    auth = {"mode": "jwt", "jwt_secret": SECRET, "audience": "vaultgate"}
    vaults = [{"id": "main", "path": str(root)}, {"id": "second", "path": str(other)}]
    async with e2e(root, auth=auth, vaults=vaults) as (url, harness):
        args_hash = await _pending(harness)
        base = url.rsplit("/mcp", 1)[0]

        async def post(token: str, **body: str) -> httpx2.Response:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http:
                return await http.post(f"{base}/admin/confirm", json={"args_hash": args_hash, **body})

        writer = hs(claims(aud="vaultgate", scope="read:vault write:vault"))
        assert (await post(writer)).status_code == 403
        elsewhere = hs(claims(aud="vaultgate", scope="admin", vault="second"))
        assert (await post(elsewhere)).status_code == 403
        assert (await post(elsewhere, vault="main")).status_code == 403
        assert await harness.app.services.state.fetchall("SELECT * FROM confirmation_tokens", ()) == []
        admin = hs(claims(aud="vaultgate", scope="admin", vault="main"))
        minted = await post(admin)
        assert minted.status_code == 200, minted.text
        token = minted.json()["token"]
        await harness.ok("write_note", **ARGS, elicit_token=token)
        assert harness.read("A.md") == "new\n"
        await harness.err("write_note", "elicit_required", **ARGS, elicit_token=token)  # used up


@pytest.mark.covers("get_metrics", "failure")
@pytest.mark.covers("get_audit_log", "failure")
async def test_all_vaults_respects_the_token_binding(make_vault: Callable[..., Path]) -> None:
    root, other = make_vault(VAULT), make_vault({"Other.md": "o\n"})
    vaults = [{"id": "main", "path": str(root)}, {"id": "second", "path": str(other)}]
    async with started(root, vaults=vaults) as vg:
        await vg.ok("read_note", path="A")
        assert (await vg.ok("get_audit_log", all_vaults=True))["items"]  # local callers are unbound
        await vg.ok("get_metrics", all_vaults=True)
        vg.principal = Principal("admin", frozenset(ALL_SCOPES), vault="second", authenticated=True)
        for tool in ("get_audit_log", "get_metrics"):
            error = await vg.err(tool, "forbidden", all_vaults=True)
            assert error["details"]["bound_vault"] == "second"
            await vg.ok(tool)  # its own vault is fine
        vg.principal = Principal("admin", frozenset(ALL_SCOPES), authenticated=True)  # claimless: default only
        await vg.err("get_audit_log", "forbidden", all_vaults=True)


async def test_a_folder_narrowed_admin_token_is_refused_at_the_edge(make_vault: Callable[..., Path]) -> None:
    """admin cannot be narrowed: `admin/Projects/**` neither approves a pending call (here a write
    outside Projects/) nor reaches /mcp; both answer 401 naming the reason."""
    root = make_vault(VAULT)
    auth = {"mode": "jwt", "jwt_secret": SECRET, "audience": "vaultgate"}
    async with e2e(root, auth=auth) as (url, harness):
        args_hash = await _pending(harness)
        base = url.rsplit("/mcp", 1)[0]
        narrowed = hs(claims(aud="vaultgate", scope="admin/Projects/**"))
        headers = {"Authorization": f"Bearer {narrowed}", "Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(headers=headers) as http:
            confirm = await http.post(f"{base}/admin/confirm", json={"args_hash": args_hash})
            init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
            mcp = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        for answer in (confirm, mcp):
            assert answer.status_code == 401, answer.text
            assert "admin cannot be narrowed to a folder" in answer.json()["error_description"]
        assert await harness.app.services.state.fetchall("SELECT * FROM confirmation_tokens", ()) == []
