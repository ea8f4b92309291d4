"""A token bound to a vault the server does not serve (minted with `--vault notes` for a server
started on a folder, whose one vault is `main`), over real HTTP with the SDK client: every call,
list_vaults included, answers `vault_not_found` naming the token's binding (`details.bound_vault`),
so the caller is not sent to list_vaults, which fails the same way; a vault named in the arguments
is still answered as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.conftest import e2e
from tests.keys import SECRET, claims, hs


async def test_a_token_bound_to_an_unserved_vault_is_told_so(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Welcome.md": "# Welcome\n"}), auth={"mode": "jwt", "jwt_secret": SECRET}) as (url, _):
        headers = {"Authorization": f"Bearer {hs(claims(vault='notes'))}"}
        async with (
            create_mcp_http_client(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            errors: list[dict[str, Any]] = []
            for tool, args in (("read_note", {"path": "Welcome"}), ("list_vaults", {})):
                out = await client.call_tool(tool, args)
                assert out.is_error and out.structured_content is not None, out
                errors.append(out.structured_content["error"])
            named = await client.call_tool("read_note", {"path": "Welcome", "vault": "work"})
        for error in errors:
            assert error["code"] == "vault_not_found", error
            assert error["details"] == {"vault": "notes", "bound_vault": "notes"}, error
        assert named.structured_content is not None
        assert named.structured_content["error"]["details"] == {"vault": "work"}
