"""The JSON Schemas clients are shown, compacted: what `tools/list` and `describe_capability` send.

pydantic's schemas repeat what costs a model context and tells it nothing: a `title` on every
property and model (the property's own name, title-cased), and, for an optional input field,
`anyOf: [T, {"type": "null"}]` with `"default": null` where leaving the field out says the same.
`compact_input` and `compact_output` drop those; the models themselves are unchanged, so an
explicit `null` is still accepted and every output still validates against its schema (output
schemas keep their `null` branches, because results carry them; as `anyOf` branches, not a
`type` list, which the MCP Inspector's portability check reports). `compact_input` also leaves out
of the advertised schema the pipeline arguments a read-only tool has no use for
(`idempotency_key`, `elicit_token`); the model still accepts them, and they also travel in the
request's `_meta` (`service.tools.models.META_KEYS`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

NULL = {"type": "null"}
# Keywords whose value maps names to schemas (names are data, not keywords).
_NAMED = ("properties", "$defs", "definitions", "patternProperties")
# Keywords whose value is a schema or a list of schemas.
_NESTED = ("items", "additionalProperties", "not", "contains", "propertyNames")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


def _strip_titles(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip_titles(n) for n in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in _NAMED and isinstance(value, dict):
            out[key] = {name: _strip_titles(sub) for name, sub in value.items()}
        elif key in _NESTED or key in _LISTS:
            out[key] = _strip_titles(value)
        else:
            out[key] = value  # enum, const, default, examples: values, kept as they are
    return out


def _drop_null_default(prop: dict[str, Any]) -> dict[str, Any]:
    """`{anyOf: [T, null], default: null, ...}` → `{...T, ...}`: optional by not being required."""
    if "default" not in prop or prop["default"] is not None:
        return prop
    rest = {k: v for k, v in prop.items() if k != "default"}
    branches = rest.get("anyOf")
    if isinstance(branches, list) and NULL in branches:
        kept = [b for b in branches if b != NULL]
        del rest["anyOf"]
        if len(kept) == 1 and isinstance(kept[0], dict) and not set(kept[0]) & set(rest):
            return {**kept[0], **rest}
        if kept:
            rest["anyOf"] = kept
    return rest


def compact_input(schema: dict[str, Any], *, omit: Iterable[str] = ()) -> dict[str, Any]:
    """An input schema for clients: no titles, optional fields without the null branch, `omit`
    fields left out (they must not be required)."""
    out: dict[str, Any] = _strip_titles(schema)
    skip = set(omit)
    if skip & set(out.get("required", ())):
        raise ValueError(f"cannot leave required fields out of a schema: {sorted(skip)}")
    for model in (out, *out.get("$defs", {}).values()):
        props = model.get("properties")
        if isinstance(props, dict):
            left = skip if model is out else set()
            model["properties"] = {name: _drop_null_default(p) for name, p in props.items() if name not in left}
    return out


def compact_output(schema: dict[str, Any]) -> dict[str, Any]:
    """An output schema for clients: no titles (null branches kept: results carry nulls)."""
    return dict(_strip_titles(schema))
