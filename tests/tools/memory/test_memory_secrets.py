"""search_memory and read_memory_graph show observations the caller did not ask for by name: a
secret in one is shown as search_regex / search_text show it under the vault's `[sensitive]` mode
(`redact` by default: `[REDACTED:<kind>]`), and the observation is flagged `sensitive` (T2 s61 #4).
open_nodes, an entity asked for by name, returns what is written (flagged too)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
OPS = (
    '---\nname: "Ops"\nentityType: "team"\n---\n# Ops\n\n## Observations\n'
    f"- The deploy key is {TOKEN} for quokka [source:: chat {TOKEN}] ^m-bbbbbbbbbbbb\n"
    "- Ops meets on Mondays ^m-cccccccccccc\n"
)


@pytest.mark.covers("search_memory", "success")
async def test_memory_search_and_graph_redact_secrets_as_the_text_search_does(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Ops.md": OPS})) as vg:
        await vg.indexed()
        regex = json.dumps(await vg.ok("search_regex", pattern="deploy key"))
        assert TOKEN not in regex and "[REDACTED:" in regex  # what the search tools show of that line
        [hit] = (await vg.ok("search_memory", query="deploy key", limit=1))["items"]
        assert TOKEN not in json.dumps(hit) and "[REDACTED:" in hit["text"] and hit["sensitive"] is True
        [plain] = (await vg.ok("search_memory", query="Mondays", limit=1))["items"]
        assert plain["text"] == "Ops meets on Mondays" and plain["sensitive"] is False
        [ops] = (await vg.ok("read_memory_graph"))["entities"]
        assert TOKEN not in json.dumps(ops) and [o["sensitive"] for o in ops["observations"]] == [True, False]
        [named] = (await vg.ok("open_nodes", names=["Ops"]))["entities"]  # asked for by name: as written
        assert TOKEN in named["observations"][0]["text"] and named["observations"][0]["sensitive"] is True


async def test_flag_mode_shows_the_secret_and_flags_it(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Memory/Ops.md": OPS}), sensitive={"mode": "flag"}) as vg:
        [hit] = (await vg.ok("search_memory", query="deploy key", limit=1))["items"]
        assert TOKEN in hit["text"] and hit["sensitive"] is True
