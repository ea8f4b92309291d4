"""What `tools/list` costs a client's context, per facade mode: bytes and an estimated token count.

    python -m tests.bench.bench_toollist [--modes lean,flat,domain,triad]

For each mode it starts the real server on a small temporary vault (uvicorn on 127.0.0.1:0),
lists the tools with the MCP SDK's Streamable HTTP client, follows every `next_cursor`, and
measures two figures:

- `model_bytes`: what a client puts in the model's context — each tool's `name`, `description`
  and `inputSchema`, as compact JSON (`json.dumps(..., separators=(",", ":"))`), summed;
- `wire_bytes`: the whole `tools/list` result as the server sends it (titles, output schemas,
  annotations and `_meta` included), same JSON encoding.

Tokens are estimated as bytes / 4 (rounded up), the usual rule of thumb for English text and
JSON with tokenizers of the GPT/Claude families; it needs no tokenizer download, so anyone can
rerun it. `tests/contract/test_toollist_budget.py` holds the default mode to the same measure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import tempfile
from pathlib import Path
from typing import Any, get_args

from mcp import Client

from tests.bench.common import report
from tests.conftest import e2e, write_files


def compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def model_view(tool: dict[str, Any]) -> dict[str, Any]:
    """The part of a listed tool a client hands its model."""
    return {"name": tool["name"], "description": tool.get("description"), "inputSchema": tool["inputSchema"]}


def estimate_tokens(n_bytes: int) -> int:
    return math.ceil(n_bytes / 4)


def measure(tools: list[dict[str, Any]]) -> dict[str, Any]:
    model = sum(compact(model_view(t)) for t in tools)
    wire = compact({"tools": tools})
    return {
        "tools": len(tools),
        "model_bytes": model,
        "model_tokens_est": estimate_tokens(model),
        "wire_bytes": wire,
        "wire_tokens_est": estimate_tokens(wire),
    }


async def listed(url: str) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    async with Client(url, mode="legacy") as client:
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                return tools


async def one_mode(mode: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        write_files(root, {"Welcome.md": "# Welcome\n"})
        async with e2e(root, tool_facade={"mode": mode}) as (url, _):
            return measure(await listed(url))


def all_modes() -> tuple[str, ...]:
    from service.settings import ToolFacadeSettings

    return tuple(str(m) for m in get_args(ToolFacadeSettings.model_fields["mode"].annotation))


async def main(modes: tuple[str, ...]) -> None:
    from service.settings import ToolFacadeSettings

    default = str(ToolFacadeSettings().mode)
    result: dict[str, Any] = {"default_mode": default, "estimator": "bytes / 4", "modes": {}}
    for mode in modes:
        result["modes"][mode] = await one_mode(mode)
    report("toollist", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default=",".join(all_modes()), help="comma-separated facade modes")
    asyncio.run(main(tuple(m for m in parser.parse_args().modes.split(",") if m)))
