"""Validation: the tool's pydantic input model; failures list every field issue.

The pipeline arguments `idempotency_key` and `elicit_token` may come in the request's `_meta`
(`service.tools.models.META_KEYS`) instead of the arguments; they are merged here, so the
idempotency and confirm layers read them from `call.args` either way. A `_meta` value that is not
a string of 1..200 characters, or that differs from the same argument given in the arguments,
is a validation error; the same value in both places is fine.

Before the model sees them, the raw arguments are measured without recursion: free-form JSON
(properties, JSONLogic, plan arguments) nested deeper than `MAX_DEPTH` or holding more than
`MAX_NODES` values is a validation error naming where, never a crash deeper down (the YAML
writer and the JSONLogic evaluator recurse per level).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import ValidationFailed
from service.tools.models import MAX_ISSUES, META_KEYS, PIPELINE_MAX_LENGTH, ToolInput, invalid_arguments

__all__ = ["MAX_DEPTH", "MAX_ISSUES", "MAX_NODES", "Validate", "check_shape", "merge_meta"]  # MAX_ISSUES: tests

MAX_DEPTH = 48
MAX_NODES = 200_000


def check_shape(raw: dict[str, Any]) -> None:
    """Refuse arguments nested deeper than MAX_DEPTH or with more than MAX_NODES values."""
    stack: list[tuple[Any, int, str]] = [(v, 1, str(k)) for k, v in raw.items()]
    nodes = 0
    while stack:
        value, depth, field = stack.pop()
        nodes += 1
        if depth > MAX_DEPTH or nodes > MAX_NODES:
            issue = f"nested deeper than {MAX_DEPTH} levels" if depth > MAX_DEPTH else f"more than {MAX_NODES} values"
            raise ValidationFailed(
                f"arguments too complex: {field} is {issue}",
                details={"issues": [{"field": field, "issue": issue, "type": "too_complex"}]},
            )
        if isinstance(value, dict):
            stack.extend((v, depth + 1, field) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1, field) for v in value)


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
        check_shape(call.raw_args)
        try:
            call.args = call.spec.input_model.model_validate(call.raw_args)
        except ValidationError as exc:
            errors = exc.errors(include_url=False, include_input=False)
            raise invalid_arguments(call.tool, call.spec.input_model, errors) from None
        if call.meta:
            merge_meta(call.args, call.meta)
        return await next(call)
