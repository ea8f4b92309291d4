"""Forged and misused tokens against a real server, each trying to change a vault.

A session is opened with a valid token; then every forgery (alg none, HS256 signed with the
public key, expired, not yet valid, wrong audience, wrong issuer, unknown kid, tampered payload,
wrong secret) sends a *mutating* tools/call on that session over raw HTTP: 401 before the MCP
transport, and nothing changes on disk (the snapshot covers both vaults and the folder around
them). Valid tokens that must still not write — bound to another vault, read-only by scope, or
for a read-only vault — fail with their tool error and leave the disk as it was.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import Harness, e2e
from tests.keys import SECRET, claims, hmac_with_public_key, hs, jwks, keys, sign, tampered, unsigned
from tests.sec_vault import SEC_VAULT

ISSUER = "https://idp.example"
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
CREATE = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "create_note", "arguments": {"path": "Inbox/Pwned", "content": "pwned\n"}},
}


def good(**extra: Any) -> dict[str, Any]:
    return claims(aud="vaultgate", iss=ISSUER, **extra)


@pytest.fixture
async def server(make_vault: Callable[..., Path], tmp_path: Path) -> AsyncIterator[tuple[str, Harness]]:
    jwks_file = tmp_path / "jwks.json"
    jwks_file.write_text(json.dumps(jwks("rsa", "ec", "ed")), encoding="utf-8")
    root = make_vault(SEC_VAULT)
    other = make_vault({"Other.md": "# Other\n"})
    frozen = make_vault({"Frozen.md": "# Frozen\n"})
    auth = {
        "mode": "jwt",
        "jwt_secret": SECRET,
        "jwks_file": str(jwks_file),
        "audience": "vaultgate",
        "issuer": ISSUER,
    }
    vaults = [
        {"id": "main", "path": str(root)},
        {"id": "second", "path": str(other)},
        {"id": "frozen", "path": str(frozen), "acl": {"read_only": True}},
    ]
    async with e2e(root, auth=auth, vaults=vaults) as pair:
        yield pair


async def open_session(http: httpx2.AsyncClient, url: str, token: str) -> dict[str, str]:
    """initialize + initialized with a valid token; returns the session's headers (no token)."""
    response = await http.post(url, json=INIT, headers={**HEADERS, "authorization": f"Bearer {token}"})
    assert response.status_code == 200
    session = {**HEADERS, "mcp-session-id": response.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    done = await http.post(url, json=note, headers={**session, "authorization": f"Bearer {token}"})
    assert done.status_code == 202
    return session


FORGERIES: list[tuple[str, Callable[[], str]]] = [
    ("alg none", lambda: unsigned(good())),
    ("HS256 signed with the public RSA key", lambda: hmac_with_public_key("rsa", good())),
    ("expired", lambda: hs(good(exp=int(time.time()) - 3600))),
    ("not yet valid", lambda: hs(good(nbf=int(time.time()) + 3600))),
    ("wrong audience", lambda: hs(claims(aud="another-api", iss=ISSUER))),
    ("wrong issuer", lambda: hs(claims(aud="vaultgate", iss="https://evil.example"))),
    ("unknown kid", lambda: sign("RS256", good(), keys()["rsa"], kid="nope")),
    ("tampered payload", lambda: tampered(hs(good(scope="read:vault")), scope="read:vault write:vault admin")),
    ("wrong secret", lambda: hs(good(), secret="another-secret-" + "y" * 40)),
]


@pytest.mark.parametrize("forge", [f for _, f in FORGERIES], ids=[name for name, _ in FORGERIES])
async def test_a_forged_token_cannot_change_the_vault(server: tuple[str, Harness], forge: Callable[[], str]) -> None:
    url, harness = server
    async with create_mcp_http_client() as http:
        session = await open_session(http, url, hs(good()))
        before = harness.snapshot()
        refused = await http.post(url, json=CREATE, headers={**session, "authorization": f"Bearer {forge()}"})
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer ")
        assert harness.snapshot() == before
        assert not (harness.root / "Inbox" / "Pwned.md").exists()
        # The same request with the session's own valid token does write: the refusal was the token's.
        accepted = await http.post(url, json=CREATE, headers={**session, "authorization": f"Bearer {hs(good())}"})
        assert accepted.status_code == 200 and "pwned" in harness.read("Inbox/Pwned.md")


@contextlib.asynccontextmanager
async def client(url: str, token: str) -> AsyncIterator[Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode="legacy") as c:
        yield c


MISUSES: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    ("bound to second, names main", good(vault="second"), {"vault": "main"}, "forbidden"),
    ("claimless, names second", good(), {"vault": "second"}, "forbidden"),
    ("read-only scope", good(scope="read:vault"), {}, "forbidden"),
    ("write narrowed to Projects", good(scope="read:vault write:vault/Projects/**"), {}, "acl_denied"),
    ("read-only vault", good(vault="frozen", scope="read:vault write:vault admin"), {"vault": "frozen"}, "forbidden"),
]


@pytest.mark.parametrize(("payload", "extra", "code"), [m[1:] for m in MISUSES], ids=[m[0] for m in MISUSES])
async def test_a_valid_token_that_may_not_write_changes_nothing(
    server: tuple[str, Harness], payload: dict[str, Any], extra: dict[str, Any], code: str
) -> None:
    url, harness = server
    before = harness.snapshot()
    async with client(url, hs(payload)) as c:
        for tool, args in (
            ("create_note", {"path": "Inbox/Pwned", "content": "pwned"}),
            ("write_note", {"path": "Inbox/Todo", "content": "pwned", "mode": "overwrite"}),
            ("delete_note", {"path": "Inbox/Todo", "permanent": True}),
            ("move_note", {"path": "Inbox/Todo", "new_path": "Inbox/Moved"}),
        ):
            result = await c.call_tool(tool, {**args, **extra})
            assert result.is_error and result.structured_content is not None, (tool, result)
            error = result.structured_content["error"]
            assert error["code"] in (code, "forbidden"), (tool, error)
            if tool == "create_note":
                assert error["code"] == code, error
    assert harness.snapshot() == before
