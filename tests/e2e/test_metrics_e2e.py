"""/metrics over HTTP: Prometheus text with per-tool series, and optional admin protection."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx2
from mcp import Client

from tests.conftest import e2e
from tests.keys import SECRET, claims, hs


async def test_metrics_expose_calls_durations_and_index_gauges(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault({"A.md": "# A\n"})) as (url, harness):
        await harness.indexed()
        async with Client(url, mode="legacy") as client:
            await client.call_tool("read_note", {"path": "A"})
            await client.call_tool("read_note", {"path": "../x"})
        base = url.rsplit("/mcp", 1)[0]
        async with httpx2.AsyncClient() as http:
            response = await http.get(f"{base}/metrics")
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
        text = response.text
        assert 'vaultgate_tool_calls_total{status="ok",tool="read_note",vault="main"} 1.0' in text
        assert 'vaultgate_tool_calls_total{status="path_invalid",tool="read_note",vault="main"} 1.0' in text
        assert "vaultgate_tool_call_duration_seconds_bucket" in text
        assert 'vaultgate_index_notes{vault="main"} 1.0' in text and "vaultgate_db_size_bytes" in text


async def test_metrics_can_require_an_admin_token(make_vault: Callable[..., Path]) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET, "protect_metrics": True}
    async with e2e(make_vault({"A.md": "# A\n"}), auth=auth) as (url, _):
        base = url.rsplit("/mcp", 1)[0]
        async with httpx2.AsyncClient() as http:
            assert (await http.get(f"{base}/metrics")).status_code == 401
            reader = {"authorization": f"Bearer {hs(claims(scope='read:vault'))}"}
            assert (await http.get(f"{base}/metrics", headers=reader)).status_code == 403
            admin = {"authorization": f"Bearer {hs(claims(scope='admin'))}"}
            assert (await http.get(f"{base}/metrics", headers=admin)).status_code == 200
            assert (await http.get(f"{base}/healthz")).status_code == 200
