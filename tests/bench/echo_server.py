"""A bare SDK low-level server with one echo tool, served like vaultgate (same uvicorn settings).

The baseline for pipeline overhead: `python -m tests.bench.echo_server` prints 'MCP endpoint: URL'.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
from collections.abc import AsyncIterator
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


async def list_tools(ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None) -> Any:
    return types.ListToolsResult(tools=[ECHO])


async def call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> Any:
    text = str((params.arguments or {}).get("text", ""))
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
