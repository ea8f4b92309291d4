"""Lookup + visibility: find the tool's spec; a disabled tool is indistinguishable from an unknown one."""

from __future__ import annotations

from collections.abc import Callable

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import ToolNotFound
from service.tools.registry import Registry
from service.tools.spec import ToolSpec

Visible = Callable[[ToolSpec], bool]


class Lookup:
    name = "lookup"

    def __init__(self, registry: Registry, callable_: Visible | None = None) -> None:
        self.registry = registry
        self.callable = callable_

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        spec = self.registry.get(call.tool)
        if spec is None or (self.callable is not None and not self.callable(spec)):
            raise ToolNotFound(f"unknown tool {call.tool!r}", details={"tool": call.tool})
        call.spec = spec
        return await next(call)
