"""The dispatch entry: the SDK's tools/call and tools/list handlers, on both transports.

This is one of the few modules that import the SDK. It builds the `CallContext` (caller,
transport, progress reporter) from the SDK's request context, runs the chain, and converts the
`ToolResult` into a `CallToolResult`: structured content + a text block, `isError` for tool
errors. Protocol faults stay JSON-RPC errors and are raised by the SDK itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types as types

from service import budget
from service.activity import Activity
from service.dispatch.chain import compose
from service.dispatch.context import CallContext, Layer, ToolResult
from service.settings.limits import LimitsSettings
from service.tools.registry import Registry
from service.tools.spec import ToolSpec
from service.types import Principal, ProgressFn, Transport

if TYPE_CHECKING:  # the SDK's server side loads after a stdio start's first calls (`service.app`)
    from mcp.server.context import ServerRequestContext

TOOLS_PAGE_SIZE = 200


class CallLog(Protocol):
    """Log notifications about tool calls (`service.protocol.client_log.ClientLogs`)."""

    def threshold(self, ctx: Any, /) -> int | None: ...

    async def tool_called(self, ctx: Any, threshold: int, tool: str, result: ToolResult, seconds: float, /) -> None: ...


def to_call_tool_result(result: ToolResult) -> types.CallToolResult:
    content: list[Any] = [types.TextContent(type="text", text=result.text)]
    content.extend(result.extra_content)
    return types.CallToolResult(content=content, structured_content=result.structured, is_error=result.is_error)


class Dispatcher:
    """Runs tool calls through the chain; used by the MCP handlers and by in-process callers."""

    def __init__(
        self,
        layers: tuple[Layer, ...],
        registry: Registry,
        *,
        principal_of: Callable[[ServerRequestContext[Any, Any]], Principal] | None = None,
        advertised: Callable[[ToolSpec], bool] | None = None,
        client_logs: CallLog | None = None,
        schemas: Callable[[ToolSpec], tuple[dict[str, Any], dict[str, Any]]] | None = None,
        activity: Activity | None = None,
        limits: LimitsSettings = budget.DEFAULT_LIMITS,
    ) -> None:
        """`principal_of`: the caller of an HTTP request; `advertised`: whether tools/list shows a
        tool (the visibility policy); `client_logs`: log notifications for clients that set a
        level; `schemas`: a tool's (input, output) schemas, e.g. kept on disk (None: generate);
        `activity`: counts the calls running, for background work that gives way to them;
        `limits`: the app's `[limits]`, those of every call it runs (`budget.within`)."""
        self.layers = layers
        self.registry = registry
        self._run = compose(layers)
        self._principal_of = principal_of
        self.advertised = advertised
        self._tools: dict[str, types.Tool] = {}
        self.client_logs = client_logs
        self.schemas = schemas
        self.activity = activity if activity is not None else Activity()
        self.limits = budget.outside(limits)

    async def call(
        self,
        tool: str,
        arguments: dict[str, Any] | None,
        *,
        principal: Principal,
        transport: Transport = "inproc",
        request: Any = None,
        progress: ProgressFn | None = None,
        input_responses: Any = None,
        request_state: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> ToolResult:
        call = CallContext(tool=tool, raw_args=dict(arguments or {}), principal=principal, transport=transport)
        call.request = request
        call.meta = dict(meta or {})
        if input_responses is not None or request_state is not None:
            call.notes["input_responses"] = input_responses or {}
            call.notes["request_state"] = request_state
        call.progress = progress
        if progress is None and request is not None and getattr(request, "session", None) is not None:
            session = request.session

            async def report(done: float, total: float | None, message: str | None) -> None:
                await session.report_progress(done, total, message)

            call.progress = report
        self.activity.begin()
        try:
            with budget.within(self.limits):  # another app in this process has its own
                return await self._run(call)
        finally:
            self.activity.end()

    def principal_for(self, ctx: ServerRequestContext[Any, Any]) -> tuple[Principal, Transport]:
        if ctx.request is None:
            return Principal.local("stdio"), "stdio"
        if self._principal_of is not None:
            return self._principal_of(ctx), "http"
        return Principal.local("http"), "http"

    def listed(self) -> list[ToolSpec]:
        specs = list(self.registry)
        if self.advertised is not None:
            specs = [s for s in specs if self.advertised(s)]
        return specs

    async def on_call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        principal, transport = self.principal_for(ctx)
        logs = self.client_logs
        threshold = logs.threshold(ctx) if logs is not None else None  # None: no client asked, no work
        started = time.perf_counter() if threshold is not None else 0.0
        result = await self.call(
            params.name,
            params.arguments,
            principal=principal,
            transport=transport,
            request=ctx,
            input_responses=params.input_responses,
            request_state=params.request_state,
            meta=dict(params.meta or {}),
        )
        if logs is not None and threshold is not None:
            await logs.tool_called(ctx, threshold, params.name, result, time.perf_counter() - started)
        if result.input_required is not None:
            return result.input_required  # type: ignore[no-any-return]
        return to_call_tool_result(result)

    async def on_list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        specs = self.listed()
        start = 0
        if params is not None and params.cursor is not None:
            cursor = params.cursor
            # Only cursors this method issued: a non-negative offset within the list (a long one
            # is none: `int` of over 4300 digits raises).
            if not (cursor.isascii() and cursor.isdigit()) or len(cursor) > 9 or int(cursor) > len(specs):
                from mcp.shared.exceptions import MCPError

                raise MCPError(types.INVALID_PARAMS, "invalid cursor")
            start = int(cursor)
        window = specs[start : start + TOOLS_PAGE_SIZE]
        nxt = str(start + TOOLS_PAGE_SIZE) if start + TOOLS_PAGE_SIZE < len(specs) else None
        return types.ListToolsResult(tools=[self._tool(s) for s in window], next_cursor=nxt)

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """The input schema of tool `name` as tools/list publishes it (None: no such tool). The
        2026-07-28 HTTP entry checks `Mcp-Param-*` headers against it on every tools/call;
        without this lookup the SDK lists every tool to find it."""
        spec = self.registry.get(name)
        return self._tool(spec).input_schema if spec is not None else None

    def _tool(self, spec: ToolSpec) -> types.Tool:
        tool = self._tools.get(spec.name)
        if tool is None:
            tool = self._tools[spec.name] = spec.to_mcp(self.schemas(spec) if self.schemas else None)
        return tool
