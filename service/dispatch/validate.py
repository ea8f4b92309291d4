"""Validation: the tool's pydantic input model; failures list every field issue."""

from __future__ import annotations

from pydantic import ValidationError

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import ValidationFailed


class Validate:
    name = "validate"

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        assert call.spec is not None
        try:
            call.args = call.spec.input_model.model_validate(call.raw_args)
        except ValidationError as exc:
            issues = [
                {
                    "field": ".".join(str(p) for p in e["loc"]) or "(arguments)",
                    "issue": e["msg"],
                    "type": e["type"],
                }
                for e in exc.errors(include_url=False, include_input=False)
            ]
            raise ValidationFailed(
                f"invalid arguments for {call.tool}: " + "; ".join(f"{i['field']}: {i['issue']}" for i in issues[:5]),
                details={"issues": issues},
            ) from None
        return await next(call)
