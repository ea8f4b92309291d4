"""vaultgate with one bench-only tool, `echo`, served exactly like `vaultgate serve`.

The echo runs through the full dispatch chain (observe, translate, governor, lookup, args_hash,
validate, authorize, resolve_vault, acl, precheck, idempotency, throttle, confirm, handler) and
the HTTP edge, so comparing it with the bare SDK echo (tests/bench/echo_server.py) isolates the
pipeline's cost. `python -m tests.bench.chain_server VAULT` prints 'MCP endpoint: URL'.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from pydantic import Field

from service.app import VaultgateApp
from service.serve import serving
from service.settings import load_settings
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec


class EchoIn(ToolInput):
    text: str = Field(description="Text to return.")


class EchoOut(ToolOutput):
    text: str = Field(description="The same text.")


async def echo(ctx: ToolContext, args: EchoIn) -> EchoOut:
    return EchoOut(text=args.text)


async def main(root: Path) -> None:
    settings = load_settings(root, http={"port": 0})
    app = VaultgateApp(settings)
    app.registry.add(ToolSpec("echo", "bench", "Echo", "Echo the text back (benchmark only).", EchoIn, EchoOut, echo))
    async with serving(settings, app) as (url, _):
        print(f"MCP endpoint: {url}", flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
