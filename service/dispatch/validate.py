"""Validation: the tool's pydantic input model; failures list every field issue.

The pipeline arguments `idempotency_key` and `elicit_token` may come in the request's `_meta`
(`service.tools.models.META_KEYS`) instead of the arguments; they are merged here, so the
idempotency and confirm layers read them from `call.args` either way. A `_meta` value that is not
a string of 1..200 characters, or that differs from the same argument given in the arguments,
is a validation error; the same value in both places is fine.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import ValidationFailed
from service.tools.models import META_KEYS, PIPELINE_MAX_LENGTH, ToolInput


def merge_meta(args: ToolInput, meta: dict[str, Any]) -> None:
    """Fill `args`' pipeline arguments from `meta` (the request's `_meta`)."""
    for name, key in META_KEYS.items():
        if key not in meta:
            continue
        value = meta[key]
        if not isinstance(value, str) or not 1 <= len(value) <= PIPELINE_MAX_LENGTH:
            raise ValidationFailed(
                f"_meta {key!r} must be a string of 1 to {PIPELINE_MAX_LENGTH} characters",
                details={"issues": [{"field": f"_meta.{key}", "issue": "invalid", "type": "string_type"}]},
            )
        given = getattr(args, name)
        if given is not None and given != value:
            raise ValidationFailed(
                f"{name} differs between the arguments and _meta {key!r}",
                details={"issues": [{"field": name, "issue": f"differs from _meta {key!r}", "type": "conflict"}]},
            )
        setattr(args, name, value)


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
        if call.meta:
            merge_meta(call.args, call.meta)
        return await next(call)
