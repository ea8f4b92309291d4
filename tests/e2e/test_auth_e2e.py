"""Authentication at the HTTP edge, end to end: real tokens signed by real keys (HS256, RS256,
ES256, EdDSA from a JWKS file), the SDK client over HTTP in both eras, raw HTTP for the
statuses a client library hides (401 + WWW-Authenticate, 421, 403, RFC 9728)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import Harness, e2e
from tests.keys import SECRET, claims, hs, jwks, keys, sign
from tests.sec_vault import SEC_VAULT

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.fixture
async def server(make_vault: Callable[..., Path], tmp_path: Path) -> AsyncIterator[tuple[str, Harness]]:
    jwks_file = tmp_path / "jwks.json"
    jwks_file.write_text(json.dumps(jwks("rsa", "ec", "ed")), encoding="utf-8")
    root = make_vault(SEC_VAULT)
    other = make_vault({"Other.md": "# Other\n"})
    auth = {"mode": "jwt", "jwt_secret": SECRET, "jwks_file": str(jwks_file), "audience": "vaultgate"}
    vaults = [{"id": "main", "path": str(root)}, {"id": "second", "path": str(other)}]
    async with e2e(root, auth=auth, vaults=vaults) as pair:
        yield pair


@contextlib.asynccontextmanager
async def client(url: str, token: str, mode: str) -> AsyncIterator[Client]:
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode) as c:  # type: ignore[arg-type]
            yield c


def aud(**extra: Any) -> dict[str, Any]:
    return claims(aud="vaultgate", **extra)


@pytest.mark.parametrize(
    "make",
    [
        lambda: hs(aud()),
        lambda: sign("RS256", aud(), keys()["rsa"], kid="rsa-1"),
        lambda: sign("ES256", aud(), keys()["ec"], kid="ec-1"),
        lambda: sign("EdDSA", aud(), keys()["ed"], kid="ed-1"),
    ],
    ids=["HS256", "RS256", "ES256", "EdDSA"],
)
async def test_real_tokens_reach_the_tools(server: tuple[str, Harness], mode: str, make: Any) -> None:
    url, _ = server
    async with client(url, make(), mode) as c:
        out = await c.call_tool("read_note", {"path": "Welcome"})
        assert not out.is_error and out.structured_content is not None
        assert out.structured_content["title"] == "Welcome"


async def test_scopes_from_the_token_are_enforced(server: tuple[str, Harness], mode: str) -> None:
    url, harness = server
    before = harness.snapshot()
    async with client(url, hs(aud(scope="read:vault write:vault/Inbox/**")), mode) as c:
        denied = await c.call_tool("create_note", {"path": "Projects/X", "content": "x"})
        assert denied.is_error and denied.structured_content is not None
        assert denied.structured_content["error"]["code"] == "acl_denied"
        forbidden = await c.call_tool("delete_note", {"path": "Inbox/Todo"})
        assert forbidden.structured_content is not None
        error = forbidden.structured_content["error"]
        assert error["code"] == "forbidden" and error["details"]["required"] == ["delete:vault"]
        admin = await c.call_tool("inspect_acl", {"path": "Inbox"})
        assert admin.structured_content is not None and admin.structured_content["error"]["code"] == "forbidden"
        assert harness.snapshot() == before
        made = await c.call_tool("create_note", {"path": "Inbox/Ok", "content": "ok\n"})
        assert not made.is_error


async def test_vault_binding(server: tuple[str, Harness], mode: str) -> None:
    url, _ = server
    async with client(url, hs(aud(vault="second")), mode) as c:
        ok = await c.call_tool("read_note", {"path": "Other"})
        assert not ok.is_error
        other = await c.call_tool("read_note", {"path": "Welcome", "vault": "main"})
        assert other.structured_content is not None and other.structured_content["error"]["code"] == "forbidden"
    async with client(url, hs(aud()), mode) as c:  # claimless on a multi-vault server: the default vault only
        denied = await c.call_tool("read_note", {"path": "Other", "vault": "second"})
        assert denied.structured_content is not None and denied.structured_content["error"]["code"] == "forbidden"


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        (None, None),
        (lambda: "garbage", "malformed"),
        (lambda: hs(aud(exp=int(time.time()) - 3600)), "expired"),
        (lambda: hs(claims()), "audience"),
        (lambda: hs(aud(), secret="wrong-secret-" + "z" * 40), "signature"),
        (lambda: sign("RS256", aud(), keys()["other_rsa"], kid="rsa-1"), "signature"),
    ],
    ids=["missing", "garbage", "expired", "no-audience", "wrong-secret", "wrong-key"],
)
async def test_bad_tokens_get_401_before_any_session(server: tuple[str, Harness], token: Any, reason: str) -> None:
    url, harness = server
    headers = dict(HEADERS)
    if token is not None:
        headers["authorization"] = f"Bearer {token()}"
    async with create_mcp_http_client() as http:
        response = await http.post(url, json=INIT, headers=headers)
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith("Bearer ")
    assert 'resource_metadata="' in challenge and "/.well-known/oauth-protected-resource/mcp" in challenge
    if reason is not None:
        assert 'error="invalid_token"' in challenge and reason in response.json()["error_description"]
    assert "mcp-session-id" not in {k.lower() for k in response.headers}


async def test_protected_resource_metadata_and_open_health(server: tuple[str, Harness]) -> None:
    url, _ = server
    base = url.rsplit("/mcp", 1)[0]
    async with create_mcp_http_client() as http:
        for path in ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"):
            doc = (await http.get(base + path)).json()
            assert doc["resource"] == url
            assert "authorization_servers" in doc and doc["bearer_methods_supported"] == ["header"]
            assert {"read:vault", "write:vault", "admin"} <= set(doc["scopes_supported"])
        assert (await http.get(base + "/healthz")).status_code == 200


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "evil.example"}, 421),
        ({"host": "evil.example:80"}, 421),
        ({"origin": "http://evil.example"}, 403),
        ({"origin": "https://127.0.0.1.evil.example"}, 403),
    ],
)
async def test_host_and_origin_rebinding_are_refused(
    server: tuple[str, Harness], headers: dict[str, str], status: int
) -> None:
    url, _ = server
    async with create_mcp_http_client() as http:
        response = await http.post(
            url, json=INIT, headers={**HEADERS, **headers, "authorization": f"Bearer {hs(aud())}"}
        )
    assert response.status_code == status


async def test_allowed_hosts_from_the_environment_admit_a_tunnel_hostname(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTGATE_HTTP__ALLOWED_HOSTS", '["notes.example.com", "127.0.0.1:*"]')
    monkeypatch.setenv("VAULTGATE_HTTP__ALLOWED_ORIGINS", '["https://notes.example.com"]')
    monkeypatch.setenv("VAULTGATE_AUTH__MODE", "jwt")
    monkeypatch.setenv("VAULTGATE_AUTH__JWT_SECRET", SECRET)
    async with e2e(make_vault(SEC_VAULT)) as (url, _):
        token = hs(claims())
        async with create_mcp_http_client() as http:
            ok = await http.post(
                url,
                json=INIT,
                headers={
                    **HEADERS,
                    "host": "notes.example.com",
                    "origin": "https://notes.example.com",
                    "authorization": f"Bearer {token}",
                },
            )
            assert ok.status_code == 200
            bad = await http.post(
                url, json=INIT, headers={**HEADERS, "host": "localhost", "authorization": f"Bearer {token}"}
            )
            assert bad.status_code == 421


@pytest.mark.parametrize("http", [{"json_response": True}, {"stateless": True}], ids=["json-response", "stateless"])
async def test_scopes_hold_in_every_http_transport_variant(
    make_vault: Callable[..., Path], mode: str, http: dict[str, Any]
) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(make_vault(SEC_VAULT), auth=auth, http=http) as (url, harness):
        before = harness.snapshot()
        async with client(url, hs(claims(scope="read:vault")), mode) as c:
            assert not (await c.call_tool("read_note", {"path": "Welcome"})).is_error
            denied = await c.call_tool("create_note", {"path": "Inbox/X", "content": "x"})
            assert denied.structured_content is not None
            assert denied.structured_content["error"]["code"] == "forbidden"
        assert harness.snapshot() == before


async def test_another_callers_token_cannot_use_a_session(server: tuple[str, Harness]) -> None:
    url, harness = server
    owner, intruder = hs(aud(sub="alice")), hs(aud(sub="mallory", scope="read:vault write:vault delete:vault"))
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call"}
    call["params"] = {"name": "delete_note", "arguments": {"path": "Inbox/Todo"}}
    before = harness.snapshot()
    async with create_mcp_http_client() as http:
        opened = await http.post(url, json=INIT, headers={**HEADERS, "authorization": f"Bearer {owner}"})
        assert opened.status_code == 200
        session = opened.headers["mcp-session-id"]
        hijack = {**HEADERS, "authorization": f"Bearer {intruder}", "mcp-session-id": session}
        refused = await http.post(url, json=call, headers=hijack)
        assert refused.status_code == 404
    assert harness.snapshot() == before


async def test_readyz_without_an_admin_token_reveals_only_booleans(server: tuple[str, Harness]) -> None:
    """Behind the Host/Origin guard, no token needed; only an admin token sees progress and totals
    (which count notes the ACL may hide), versions and load errors."""
    url, harness = server
    base = url.rsplit("/mcp", 1)[0]
    await harness.indexed()
    public = {
        "ready": True,
        "vaults": {"main": {"ready": True}, "second": {"ready": True}},
        "storage": {"fts5": True, "sqlite_vec": True},
    }
    async with create_mcp_http_client() as http:
        for headers in ({}, {"authorization": f"Bearer {hs(aud())}"}, {"authorization": "Bearer forged.x.y"}):
            response = await http.get(f"{base}/readyz", headers=headers)
            assert response.status_code == 200 and response.json() == public
        admin = await http.get(f"{base}/readyz", headers={"authorization": f"Bearer {hs(aud(scope='admin'))}"})
        assert admin.status_code == 200
        full = admin.json()
        assert full["vaults"]["main"]["index"]["progress"]["total"] > 0 and full["storage"]["sqlite_vec_version"]
        assert (await http.get(f"{base}/readyz", headers={"host": "evil.example"})).status_code == 421
        assert (await http.get(f"{base}/readyz", headers={"origin": "http://evil.example"})).status_code == 403
        assert (await http.get(f"{base}/healthz", headers={"host": "evil.example"})).status_code == 200
