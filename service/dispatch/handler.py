"""The terminal layer: run the tool's handler and render its output once (or pass on a nested
call's InputRequiredResult, see `InputNeeded`)."""

from __future__ import annotations

from service.dispatch.context import CallContext, ContextFor, Next, ToolResult
from service.tools.context import InputNeeded


class RunHandler:
    name = "handler"

    def __init__(self, context_for: ContextFor) -> None:
        self.context_for = context_for

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        assert call.spec is not None and call.args is not None and call.vault is not None
        ctx = self.context_for(call)
        try:
            output = await call.spec.handler(ctx, call.args)
        except InputNeeded as needed:
            call.notes["input_required"] = True
            return ToolResult(structured=None, text="", input_required=needed.pending)
        structured = output.model_dump(mode="json", by_alias=True)
        result = ToolResult(structured=structured, text=output.to_text(), extra_content=output.content_blocks())
        # A facade call reports what its inner call did; any other tool changed something when it
        # is mutating and this was not a dry run.
        applied = call.notes.pop("inner_applied", None)
        if applied is None:
            applied = call.spec.mutating and not getattr(call.args, "dry_run", False)
        result.applied = bool(applied)
        return result
