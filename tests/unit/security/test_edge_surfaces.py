"""Scopes and vault binding hold outside tools/call too: resources, prompts and completions over
HTTP with real tokens (a token without read:vault reads nothing; a bound or claimless token on a
multi-vault server reaches only its vault)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from tests.conftest import Harness, e2e
from tests.keys import SECRET, claims, hs
from tests.sec_vault import SEC_VAULT


@pytest.fixture
async def server(make_vault: Callable[..., Path]) -> AsyncIterator[tuple[str, Harness]]:
    root = make_vault(SEC_VAULT)
    other = make_vault({"Other.md": "# Other\n\nSecond vault only.\n"})
    vaults = [{"id": "main", "path": str(root)}, {"id": "second", "path": str(other)}]
    async with e2e(root, auth={"mode": "jwt", "jwt_secret": SECRET}, vaults=vaults) as pair:
        yield pair


@contextlib.asynccontextmanager
async def client(url: str, token: str, mode: str) -> AsyncIterator[Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as c:  # type: ignore[arg-type]
        yield c


async def test_a_token_without_read_scope_reads_nothing_through_other_surfaces(
    server: tuple[str, Harness], mode: str
) -> None:
    url, _ = server
    async with client(url, hs(claims(scope="write:vault")), mode) as c:
        with pytest.raises(MCPError):
            await c.read_resource("vault://main/Welcome.md")
        with pytest.raises(MCPError):
            await c.list_resources()
        with pytest.raises(MCPError):
            await c.get_prompt("summarize_note", {"path": "Welcome"})
        with pytest.raises(MCPError):
            await c.get_prompt("review_folder", {"folder": ""})
        with pytest.raises(MCPError):
            await c.complete(types.PromptReference(name="summarize_note"), {"name": "path", "value": "w"})


async def test_resources_honour_vault_binding(server: tuple[str, Harness], mode: str) -> None:
    url, _ = server
    async with client(url, hs(claims(scope="read:vault")), mode) as c:  # claimless: default vault only
        read = await c.read_resource("vault://main/Welcome.md")
        assert isinstance(read.contents[0], types.TextResourceContents)
        with pytest.raises(MCPError):
            await c.read_resource("vault://second/Other.md")
    async with client(url, hs(claims(scope="read:vault", vault="second")), mode) as c:
        read = await c.read_resource("vault://second/Other.md")
        assert isinstance(read.contents[0], types.TextResourceContents)
        assert "Second vault only" in read.contents[0].text
        with pytest.raises(MCPError):
            await c.read_resource("vault://main/Welcome.md")
        listed = {str(r.uri) for r in (await c.list_resources()).resources}
        assert listed == {"vault://second/Other.md"}
        template = types.ResourceTemplateReference(uri="vault://{vault}/{path}")
        offered = await c.complete(template, {"name": "vault", "value": ""})
        assert offered.completion.values == ["second"]


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_no_client_changes_the_process_log_level(server: tuple[str, Harness]) -> None:
    """A client's level (legacy `logging/setLevel`, or the per-request `logLevel` of 2026-07-28)
    is for the notifications it receives; the server's own log keeps the operator's level, even
    for an admin token."""
    url, _ = server
    logger = logging.getLogger("vaultgate")
    before = logger.level
    try:
        logger.setLevel(logging.INFO)
        async with client(url, hs(claims(scope="read:vault")), "legacy") as c:
            await c.set_logging_level("emergency")
        assert logger.level == logging.INFO
        async with client(url, hs(claims(scope="admin")), "legacy") as c:
            await c.set_logging_level("error")
        assert logger.level == logging.INFO
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {hs(claims(scope='admin'))}"})
        transport = streamable_http_client(url, http_client=http)
        async with http, Client(transport, log_level="debug") as c:  # type: ignore[arg-type]
            await c.call_tool("read_note", {"path": "Welcome"})
        assert logger.level == logging.INFO
    finally:
        logger.setLevel(before)
