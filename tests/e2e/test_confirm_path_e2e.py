"""`vaultgate confirm` as a newcomer runs it beside a `vaultgate serve` subprocess, the call over
real HTTP with the SDK client: the `elicit_required` hint names what PATH is (the folder or config
file the server was started with, not the vault id its details show), and a PATH no server ran on
(another folder) exits 1 saying where it looked, creating no records there, where it answered
"expired, or already confirmed?" and left an empty state.db behind. The right PATH then approves."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.e2e.test_cli import run, serve


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
