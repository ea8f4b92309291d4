"""The terminal layer: run the tool's handler and render its output once."""

from __future__ import annotations

from service.dispatch.context import CallContext, Next, ToolResult
from service.runtime import Services
from service.tools.context import ToolContext


class RunHandler:
    name = "handler"

    def __init__(self, services: Services) -> None:
        self.services = services

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        assert call.spec is not None and call.args is not None and call.vault is not None
        ctx = ToolContext(call=call, vault=call.vault, services=self.services)
        output = await call.spec.handler(ctx, call.args)
        structured = output.model_dump(mode="json", by_alias=True)
        return ToolResult(structured=structured, text=output.to_text(), extra_content=output.content_blocks())
