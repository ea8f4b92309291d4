"""apply_finding over real HTTP (uvicorn, the SDK client, both eras) by a token that lacks a scope
the finding's plan needs (a merge deletes an entity: `delete:vault`): `forbidden` naming it, not
`conflict`; the finding stays open."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

from tests.conftest import e2e
from tests.keys import SECRET, claims, hs
from tests.tools.plane.test_apply_needs_the_plans_scopes import VAULT, WRITER


async def test_over_http_the_writer_is_forbidden(make_vault: Callable[..., Path], mode: str) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET, "audience": "vaultgate"}
    async with e2e(make_vault(VAULT), auth=auth) as (url, harness):
        await harness.indexed()

        async def call(scope: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
            headers = {"Authorization": f"Bearer {hs(claims(aud='vaultgate', scope=scope))}"}
            async with (
                create_mcp_http_client(headers=headers) as http,
                Client(streamable_http_client(url, http_client=http), mode=mode) as client,  # type: ignore[arg-type]
            ):
                out = await client.call_tool(tool, args)
            assert out.structured_content is not None
            return out.structured_content

        await call("admin", "run_consolidation", {"wait": True, "jobs": ["duplicates"]})
        [merge] = (await call("admin", "list_findings", {"kind": "duplicate_entity"}))["items"]
        out = await call(WRITER, "apply_finding", {"finding_id": merge["id"]})
        assert out["error"]["code"] == "forbidden" and "delete:vault" in out["error"]["message"], out
        [still] = (await call("admin", "list_findings", {"kind": "duplicate_entity"}))["items"]
        assert still["status"] == "open"
