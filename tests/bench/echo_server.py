"""A bare SDK low-level server, served like vaultgate (same uvicorn settings): the overhead baseline.

Two tools: `echo` (returns its text) and `read_raw` (reads a file under the folder given as the
first command-line argument and returns it as text + structured content — the same payload
read_note returns, without vaultgate's pipeline, path safety, parsing or metadata). Comparing
read_note with both separates the pipeline's cost from the cost of moving the note's bytes.
`python -m tests.bench.echo_server [ROOT]` prints 'MCP endpoint: URL'.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette

ECHO = types.Tool(
    name="echo",
    description="Echo the text back.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
)


READ_RAW = types.Tool(
    name="read_raw",
    description="Return a file's text.",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    output_schema={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)
ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()


async def list_tools(ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None) -> Any:
    return types.ListToolsResult(tools=[ECHO, READ_RAW])


async def call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> Any:
    args = params.arguments or {}
    if params.name == "read_raw":
        path = str(args.get("path", ""))
        content = (ROOT / path).read_text(encoding="utf-8")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=content)],
            structured_content={"path": path, "content": content},
        )
    text = str(args.get("text", ""))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content={"text": text})


async def main() -> None:
    server: Server[Any] = Server("echo", on_list_tools=list_tools, on_call_tool=call_tool)
    inner = server.streamable_http_app(
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1", "127.0.0.1:*"],
            allowed_origins=["http://127.0.0.1:*"],
        )
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    app = Starlette(routes=inner.routes, middleware=inner.user_middleware, lifespan=lifespan)
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        loop="uvloop" if importlib.util.find_spec("uvloop") else "asyncio",
        http="httptools" if importlib.util.find_spec("httptools") else "h11",
        log_config=None,
        access_log=False,
    )
    srv = uvicorn.Server(config)
    task = asyncio.create_task(srv.serve())
    while not srv.started:  # noqa: ASYNC110 - uvicorn exposes a flag, not an event
        await asyncio.sleep(0.01)
    port = srv.servers[0].sockets[0].getsockname()[1]
    print(f"MCP endpoint: http://127.0.0.1:{port}/mcp", flush=True)
    await task


if __name__ == "__main__":
    asyncio.run(main())
