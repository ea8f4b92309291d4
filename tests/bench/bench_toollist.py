"""What `tools/list` costs a client's context, per facade mode: bytes and an estimated token count.

    python -m tests.bench.bench_toollist [--modes lean,flat,domain,triad]

For each mode it starts the real server on a small temporary vault (uvicorn on 127.0.0.1:0),
lists the tools with the MCP SDK's Streamable HTTP client, follows every `next_cursor`, and
measures (tests/toollist_size.py) `model_bytes` — each tool's `name`, `description` and
`inputSchema` as compact JSON, what a client puts in its model's context — and `wire_bytes`, the
whole result as sent (output schemas, annotations and `_meta` included), each with a token
estimate of bytes / 4. `tests/contract/test_toollist_budget.py` holds the default mode to 32 KB
of `model_bytes` with the same measure.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any, get_args

from mcp import Client

from tests.bench.common import report
from tests.conftest import e2e, write_files
from tests.toollist_size import measure


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
    result: dict[str, Any] = {"default_mode": default, "estimator": "bytes / 4, rounded up", "modes": {}}
    for mode in modes:
        result["modes"][mode] = await one_mode(mode)
    report("toollist", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default=",".join(all_modes()), help="comma-separated facade modes")
    asyncio.run(main(tuple(m for m in parser.parse_args().modes.split(",") if m)))
