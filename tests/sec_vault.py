"""A vault with Inbox/, Projects/, Private/ and the worked ACL example from docs/security.md."""

from __future__ import annotations

from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from service.security.scopes import parse_scopes
from service.types import Principal
from tests.keys import claims, hs

SEC_VAULT: dict[str, str | bytes] = {
    "Inbox/Todo.md": "---\ntags: [inbox]\n---\n# Todo\n\nLink to [[Plan]] and [[Diary]].\n",
    "Projects/Plan.md": (
        "---\nstatus: active\ntags: [project]\n---\n# Plan\n\nThe plan mentions zebra. See [[Diary]].\n"
    ),
    "Projects/Notes/Idea.md": "# Idea\n\nAn idea about zebra.\n",
    "Private/Diary.md": (
        "---\nstatus: secret\nmood: grim\ntags: [private, project]\n---\n# Diary\n\n"
        "Confidential zebra stripes. #hidden-tag\n\n[[Plan]]\n"
    ),
    "Private/Sub/Deep.md": "# Deep\n\nDeeper secret about zebra.\n",
    "Welcome.md": "# Welcome\n\nStart here; [[Plan]].\n",
}

# "agent may write Inbox/, read Projects/, nothing in Private/" (docs/security.md example).
WORKED_ACL: dict[str, Any] = {
    "default_deny": True,
    "read_paths": ["Inbox/**", "Projects/**"],
    "write_paths": ["Inbox/**"],
    "delete_paths": [],
    "prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}],
}


def caller(scope: str, vault: str | None = None) -> Principal:
    return Principal(subject="agent", scopes=parse_scopes(scope), vault=vault, authenticated=True)


async def call_with_scope(url: str, scope: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """`tool` over real HTTP with the SDK client, as a JWT (the test secret, audience `vaultgate`)
    granting `scope`; its structured content."""
    token = hs(claims(aud="vaultgate", scope=scope))
    async with (
        # the SDK's own timeouts (30 s, 300 s to read), not httpx2's 5 s: a domain's first call imports it
        create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(streamable_http_client(url, http_client=http)) as client,  # type: ignore[arg-type]
    ):
        out = await client.call_tool(tool, args)
    assert out.structured_content is not None
    return out.structured_content
