"""A tool's advertised output schema: its result model, or the structured error every tool can end with.

A failed call answers `isError: true` with `structuredContent: {"error": {code, message, details,
retryable, hint}}` (`service.dispatch.context.ToolResult.failure`). The MCP specification asks a
tool with an `outputSchema` to return structured content that conforms to it, and it makes no
exception for errors: the official TypeScript client and the MCP Inspector validate
`structuredContent` against `outputSchema` whenever it is present, `isError` or not, and turn a
mismatch into a protocol error that hides the server's error. So the schema says both outcomes:

    {"type": "object", "anyOf": [<the result model>, <the error envelope>], "$defs": {...}}

The two branches exclude each other (each forbids properties it does not declare, and the error
branch requires `error` as an object with `code` and `message`; `tests/contract/test_schema_types.py`
checks it for every tool), so `anyOf` accepts exactly the documents `oneOf` would, and a client
validating a success still checks every field of the result. `anyOf` because a validator stops at
the first branch that fits, where `oneOf` also checks a success against the error branch and
builds its errors: ~10 % of what the SDK's client spends checking a `read_note` answer
(docs/benchmarks.md). The result model's `$defs` move to the root so its `$ref`s resolve
unchanged; its title and description stay at the root for readers.

A mutating tool without a `dry_run` argument has a third branch, the preview a vault in
`write_mode = "dry-run"` answers instead of running it (`service.plans.preview`: `dry_run: true`,
`write_mode`, `tool`, `effects`, `summary`, nothing else); it excludes the other two the same way.
"""

from __future__ import annotations

import copy
from typing import Any

ERROR_ENVELOPE: dict[str, Any] = {
    "type": "object",
    "title": "ToolError",
    "description": "A failed call (isError: true): what went wrong and what to do about it.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "Stable machine-readable code, e.g. note_not_found."},
                "message": {"type": "string", "description": "What went wrong, for a human or a model."},
                "details": {"type": "object", "description": "Facts about the failure (field, path, limit, ...)."},
                "retryable": {"type": "boolean", "description": "Whether the same call may succeed later."},
                "hint": {
                    "anyOf": [{"type": "string"}, {"type": "null"}],
                    "description": "What to do next, when there is advice.",
                },
            },
            "required": ["code", "message", "details", "retryable", "hint"],
            "additionalProperties": False,
        }
    },
    "required": ["error"],
    "additionalProperties": False,
}

_ROOT_KEYS = ("title", "description")


def with_error_branch(result_schema: dict[str, Any], preview: dict[str, Any] | None = None) -> dict[str, Any]:
    """The output schema for a tool whose successful results follow `result_schema` (and, for a
    mutating tool without its own dry run, whose dry-run-mode previews follow `preview`)."""
    result = copy.deepcopy(result_schema)
    defs = result.pop("$defs", None)
    schema: dict[str, Any] = {"type": "object"}
    for key in _ROOT_KEYS:
        if key in result:
            schema[key] = result[key]
    schema["anyOf"] = [result, *([copy.deepcopy(preview)] if preview else []), copy.deepcopy(ERROR_ENVELOPE)]
    if defs:
        schema["$defs"] = defs
    return schema


def result_branch(output_schema: dict[str, Any]) -> dict[str, Any]:
    """The result model's schema inside an output schema built by `with_error_branch`."""
    branches = output_schema.get("anyOf", [])
    return branches[0] if branches else output_schema
