"""search_memory over HTTP (real uvicorn, SDK client) redacts a secret in an observation as
search_text does on the same line, under the default `[sensitive]` mode (T2 s61 #4)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.memory.test_memory_secrets import OPS, TOKEN


async def test_search_memory_redacts_a_secret_over_http(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault({"Memory/Ops.md": OPS})) as (url, h), Client(url, mode="legacy") as c:
        await h.indexed()
        text = json.dumps(await ok(c, "search_text", query="deploy key"))
        assert TOKEN not in text and "REDACTED" in text
        [hit] = (await ok(c, "search_memory", query="deploy key", limit=1))["items"]
        assert TOKEN not in json.dumps(hit) and hit["sensitive"] is True
        graph = await ok(c, "read_memory_graph")
        assert TOKEN not in json.dumps(graph)
