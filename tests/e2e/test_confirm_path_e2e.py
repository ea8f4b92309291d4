"""`vaultgate confirm` as a newcomer runs it beside a `vaultgate serve` subprocess, the call over
real HTTP with the SDK client: the `elicit_required` hint names what PATH is (the folder or config
file the server was started with, not the vault id its details show), and a PATH no server ran on
(another folder) exits 1 saying where it looked, creating no records there, where it answered
"expired, or already confirmed?" and left an empty state.db behind. The right PATH then approves,
also for a jwt server from a shell without its secret."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.e2e.test_cli import run, serve
from tests.keys import SECRET, claims, hs


async def test_confirm_with_another_folder_says_where_it_looked(make_vault: Callable[..., Path]) -> None:
    vault = make_vault({"Inbox/old.md": "old\n"})
    other = make_vault({"Other.md": "x\n"})
    data = Path(os.environ["XDG_DATA_HOME"]) / "vaultgate"
    args = {"path": "Inbox/old.md", "permanent": True}
    with serve(str(vault), "--port", "0") as (_, url):
        async with Client(url) as client:
            asked = await client.call_tool("delete_note", args)
            assert asked.structured_content is not None
            error = asked.structured_content["error"]
            assert error["code"] == "elicit_required"
            assert "config" in error["hint"], error["hint"]  # not just `<vault>`, read as the vault id
            before = sorted(p.name for p in data.iterdir())
            wrong = run("confirm", error["details"]["args_hash"], str(other))
            assert wrong.returncode == 1 and wrong.stdout == ""
            assert str(data) in wrong.stderr, wrong.stderr  # where it looked
            assert sorted(p.name for p in data.iterdir()) == before  # no records made for `other`
            right = run("confirm", error["details"]["args_hash"], str(vault))
            assert right.returncode == 0, right.stderr
            done = await client.call_tool("delete_note", {**args, "elicit_token": right.stdout.split()[-1]})
            assert done.structured_content is not None and done.structured_content["deleted"] is True
    assert not (vault / "Inbox" / "old.md").exists()


async def test_confirm_for_a_jwt_server_needs_no_secret_in_the_shell(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """The server has its secret in its own environment (systemd's /etc/vaultgate/env); the human
    confirms from a shell without it. `confirm` serves nothing, so the config's auth is not
    checked (it answered "auth.mode = 'jwt' needs auth.jwt_secret")."""
    vault = make_vault({"Inbox/old.md": "old\n"})
    config = tmp_path / "vaultgate.toml"
    config.write_text(f'[auth]\nmode = "jwt"\n\n[[vaults]]\nid = "main"\npath = "{vault}"\n', encoding="utf-8")
    args = {"path": "Inbox/old.md", "permanent": True}
    token = hs(claims(scope="read:vault write:vault delete:vault"))
    with serve(str(config), "--port", "0", env={"VAULTGATE_AUTH__JWT_SECRET": SECRET}) as (_, url):
        async with (
            create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            asked = await client.call_tool("delete_note", args)
            assert asked.structured_content is not None
            error = asked.structured_content["error"]
            assert error["code"] == "elicit_required"
            assert "VAULTGATE_AUTH__JWT_SECRET" not in os.environ
            approved = run("confirm", error["details"]["args_hash"], str(config))
            assert approved.returncode == 0, approved.stderr
            done = await client.call_tool("delete_note", {**args, "elicit_token": approved.stdout.split()[-1]})
            assert done.structured_content is not None and done.structured_content["deleted"] is True


async def test_confirm_follows_the_data_folder_the_server_was_given(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    """docs/deployment.md's systemd line: the unit names its data folder in the environment
    (`VAULTGATE_STORAGE__DATA_DIR`), so the human's confirm names it too; without it the
    command says which folder it looked in."""
    vault = make_vault({"Inbox/old.md": "old\n"})
    unit = {"VAULTGATE_STORAGE__DATA_DIR": str(tmp_path / "lib")}
    args = {"path": "Inbox/old.md", "permanent": True}
    with serve(str(vault), "--port", "0", env=unit) as (_, url):
        async with Client(url) as client:
            asked = await client.call_tool("delete_note", args)
            assert asked.structured_content is not None
            args_hash = asked.structured_content["error"]["details"]["args_hash"]
            bare = run("confirm", args_hash, str(vault))
            assert bare.returncode == 1 and os.environ["XDG_DATA_HOME"] in bare.stderr, bare.stderr
            approved = run("confirm", args_hash, str(vault), env=unit)
            assert approved.returncode == 0, approved.stderr
            done = await client.call_tool("delete_note", {**args, "elicit_token": approved.stdout.split()[-1]})
            assert done.structured_content is not None and done.structured_content["deleted"] is True
