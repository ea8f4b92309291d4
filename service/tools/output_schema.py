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

The assembled schema is then rewritten into one that accepts exactly the same documents but costs a
validator less (`cheap_to_check`): a definition used once, and not recursive, is written out where
its `$ref` stood (jsonschema resolves a `$ref` at every instance it checks: ~5 us for each hit of a
`search_text` answer, ~10 % of what the SDK's client spends checking one), and a tuple of equal
items of fixed length (`prefixItems: [S, S]` with `maxItems: 2`) becomes `items: S` with the same
bounds, which more clients read (the MCP Inspector's portability rules hold either way).

Two more rewrites cut what a validator does for the fields of a typical answer. A nullable
field's `{"type": "null"}` branch goes first in its `anyOf` (`anyOf` is an "or": the order of its
branches changes no verdict): jsonschema tries the branches in order and builds a
`ValidationError` for each one that fails, so a null value (most optional fields of an answer:
`frontmatter_error`, `encoding`) is checked by one branch instead of failing the value's type
first; a value that is set costs that failure instead (a page's `next_cursor`). And
`additionalProperties: true` goes (it is the default), unless the schema says
`unevaluatedProperties` somewhere (whose verdict can depend on what `additionalProperties`
evaluated): jsonschema otherwise lists a free-form object's keys against `properties` only to
check them against `true`. In process, the SDK client's check of a typical `read_note` answer
131.8 -> 105.6 us (docs/benchmarks.md). A nullable field stays `anyOf` branches: the Inspector's
portability check reports a `type` list.
`tests/contract/test_output_schema_rewrite.py` checks every tool's verdicts before and after.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterator
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
    return cheap_to_check(branches(result_schema, preview))


def branches(result_schema: dict[str, Any], preview: dict[str, Any] | None = None) -> dict[str, Any]:
    """`with_error_branch` before `cheap_to_check`: the branches as written, definitions at the root."""
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


# Keywords whose value maps names to schemas; whose value is a schema; whose value is a list of schemas.
_NAMED = ("properties", "patternProperties", "dependentSchemas")
_NESTED = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
# Keywords that do not take part in validation: a `$ref` with only these beside it can be written out.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"})
_DEFS = "#/$defs/"
_NULL = {"type": "null"}


def _refs(node: Any) -> Iterator[str]:
    """The definition names every `#/$defs/<name>` reference under `node` names, anywhere (over-counting
    a `$ref` inside a value only keeps a definition from being written out)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_DEFS):
            yield ref.removeprefix(_DEFS)
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _recursive(defs: dict[str, Any]) -> set[str]:
    """The definitions that reach themselves through their references."""
    edges = {name: set(_refs(body)) & set(defs) for name, body in defs.items()}
    found: set[str] = set()
    for start in defs:
        seen: set[str] = set()
        todo = list(edges[start])
        while todo:
            name = todo.pop()
            if name == start:
                found.add(start)
                break
            if name not in seen:
                seen.add(name)
                todo.extend(edges[name])
    return found


class _Rewriter:
    """One output schema's rewrite (`cheap_to_check`); `written_out` names the definitions it inlined."""

    def __init__(self, schema: dict[str, Any], defs: dict[str, Any]) -> None:
        uses = Counter(_refs(schema))
        self.defs = defs
        self.inline = {name for name in defs if uses[name] == 1} - _recursive(defs)
        self.written_out: set[str] = set()
        # `additionalProperties: true` marks keys evaluated, which `unevaluatedProperties` reads
        self.keep_open = _says(schema, "unevaluatedProperties")

    def schema(self, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.removeprefix(_DEFS) in self.inline and ref.startswith(_DEFS):
            beside = {k: v for k, v in node.items() if k != "$ref"}
            if set(beside) <= _ANNOTATIONS:  # what the reference says of itself wins, as it did
                name = ref.removeprefix(_DEFS)
                self.written_out.add(name)
                return {**self.schema(self.defs[name]), **beside}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _NAMED and isinstance(value, dict):
                out[key] = {name: self.schema(sub) for name, sub in value.items()}
            elif key in _NESTED:
                out[key] = self.schema(value)
            elif key in _LISTS and isinstance(value, list):
                out[key] = [self.schema(sub) for sub in value]
            else:
                out[key] = value  # enum, const, default, examples, bounds: values, kept as they are
        if out.get("additionalProperties") is True and not self.keep_open:
            del out["additionalProperties"]  # the default: checking every key against `true` finds nothing
        return _null_first(_tuple_as_items(out))


def _says(node: Any, keyword: str) -> bool:
    """Whether `keyword` is a key anywhere under `node` (over-counting a key inside a value only
    keeps `additionalProperties: true` where it is)."""
    if isinstance(node, dict):
        return keyword in node or any(_says(value, keyword) for value in node.values())
    if isinstance(node, list):
        return any(_says(value, keyword) for value in node)
    return False


def _null_first(node: dict[str, Any]) -> dict[str, Any]:
    """`anyOf` with its `{"type": "null"}` branch first: the same "or", tried in another order."""
    branches = node.get("anyOf")
    if not isinstance(branches, list) or _NULL not in branches[1:]:
        return node
    ordered = [b for b in branches if b == _NULL] + [b for b in branches if b != _NULL]
    return {k: (ordered if k == "anyOf" else v) for k, v in node.items()}


def _tuple_as_items(node: dict[str, Any]) -> dict[str, Any]:
    """`prefixItems: [S, ..., S]` (n equal schemas) with `maxItems` <= n and no `items` or
    `unevaluatedItems` → `items: S`: every item there can be is checked by S either way."""
    tuple_ = node.get("prefixItems")
    bound = node.get("maxItems")
    if (
        not isinstance(tuple_, list)
        or not tuple_
        or any(item != tuple_[0] for item in tuple_)
        or "items" in node
        or "unevaluatedItems" in node
        or not isinstance(bound, int)
        or isinstance(bound, bool)
        or bound > len(tuple_)
    ):
        return node
    return {("items" if k == "prefixItems" else k): (tuple_[0] if k == "prefixItems" else v) for k, v in node.items()}


def cheap_to_check(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` rewritten to accept exactly the same documents with less work for a validator: a
    definition used once and not recursive written out in place of its `$ref`, a tuple of equal
    items of fixed length as `items`, a null branch first, no `additionalProperties: true`
    (module docstring). Titles and descriptions stay."""
    defs = schema.get("$defs")
    if not isinstance(defs, dict):
        defs = {}
    rewriter = _Rewriter(schema, defs)
    out = rewriter.schema({k: v for k, v in schema.items() if k != "$defs"})
    kept = {name: rewriter.schema(body) for name, body in defs.items() if name not in rewriter.written_out}
    # a definition written out inside one that stays: rewritten again above, so drop it once more
    kept = {name: body for name, body in kept.items() if name not in rewriter.written_out}
    if kept:
        out["$defs"] = kept
    return dict(out)


def result_branch(output_schema: dict[str, Any]) -> dict[str, Any]:
    """The result model's schema inside an output schema built by `with_error_branch`."""
    branches = output_schema.get("anyOf", [])
    return branches[0] if branches else output_schema
