"""Every field of every tool schema has a JSON type, in every tools/list mode.

A field without one (pydantic's `Any` becomes `{}`) accepts anything: clients that map tool schemas
onto typed function declarations drop or reject it, and the MCP Inspector's schema-portability
check reports it. A field is typed when it has `type`, or a `$ref` to a typed definition, or
`anyOf`/`oneOf` branches that are each typed. The error branch every output schema carries is
checked too, and so is the rule that no document fits two branches of an output schema (so its
`anyOf` accepts exactly what a `oneOf` would).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from service.app import VaultgateApp
from service.errors import VaultgateError
from service.settings import load_settings
from service.settings.policy import ToolFacadeSettings
from service.tools.output_schema import ERROR_ENVELOPE
from service.tools.registry import build_registry

SPECS = list(build_registry())
MODES = typing.get_args(ToolFacadeSettings.model_fields["mode"].annotation)


def _typed(node: Any, root: dict[str, Any]) -> bool:
    if not isinstance(node, dict):
        return False
    if "type" in node:
        return True
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _typed(root.get("$defs", {}).get(ref.removeprefix("#/$defs/")), root)
    branches = node.get("anyOf") or node.get("oneOf")
    return bool(branches) and all(_typed(b, root) for b in branches)


def _fields(node: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every property schema under `node` (nested objects, array items, branches, definitions)."""
    if not isinstance(node, dict):
        return
    for name, sub in (node.get("properties") or {}).items():
        yield f"{path}.properties.{name}", sub
        yield from _fields(sub, f"{path}.properties.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield from _fields(node[key], f"{path}.{key}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(node.get(key) or []):
            yield from _fields(sub, f"{path}.{key}[{i}]")
    for name, sub in (node.get("$defs") or {}).items():
        yield from _fields(sub, f"{path}.$defs.{name}")


def untyped(schema: dict[str, Any], kind: str) -> list[str]:
    return [where for where, sub in _fields(schema, kind) if not _typed(sub, schema)]


def test_the_check_finds_an_untyped_field() -> None:
    props = {"a": {"type": "string"}, "b": {}, "c": {"anyOf": [{"type": "null"}, {}]}}
    schema = {"type": "object", "properties": props}
    assert untyped(schema, "inputSchema") == ["inputSchema.properties.b", "inputSchema.properties.c"]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_field_of_every_tool_has_a_json_type(spec: Any) -> None:
    assert untyped(spec.input_schema(), "inputSchema") == []
    assert untyped(spec.output_schema(), "outputSchema") == []


@pytest.mark.parametrize("mode", MODES)
async def test_every_listed_field_has_a_json_type_in_every_mode(mode: str, make_vault: Callable[..., Path]) -> None:
    app = VaultgateApp(load_settings(make_vault(), tool_facade={"mode": mode}))
    listed = await app.dispatcher.on_list_tools(None, None)  # type: ignore[arg-type]
    assert listed.tools
    for tool in listed.tools:
        assert untyped(tool.input_schema, "inputSchema") == [], tool.name
        assert untyped(tool.output_schema or {}, "outputSchema") == [], tool.name


def _leaf_errors() -> list[type[VaultgateError]]:
    seen: list[type[VaultgateError]] = []
    todo = [VaultgateError]
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo.extend(cls.__subclasses__())
    return seen


@pytest.mark.parametrize("cls", _leaf_errors(), ids=lambda c: c.__name__)
def test_every_error_payload_fits_the_error_branch(cls: type[VaultgateError]) -> None:
    jsonschema.validate({"error": cls("boom", details={"path": "A.md"}).to_payload()}, ERROR_ENVELOPE)
    jsonschema.validate({"error": cls("boom", hint="try again").to_payload()}, ERROR_ENVELOPE)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_an_error_fits_exactly_one_branch_of_every_output_schema(spec: Any) -> None:
    schema = spec.output_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    error = {"error": VaultgateError("boom").to_payload()}
    jsonschema.validate(error, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"error": {"code": "x"}}, schema)
    fitting = [b for b in schema["anyOf"] if jsonschema.Draft202012Validator(b).is_valid(error)]
    assert len(fitting) == 1


def _excludes(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether no document fits both: `a` requires a property that `b` forbids."""
    return b.get("additionalProperties") is False and any(
        k not in b.get("properties", {}) for k in a.get("required", [])
    )


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_the_branches_of_every_output_schema_exclude_each_other(spec: Any) -> None:
    # so `anyOf` accepts exactly the documents `oneOf` would (service/tools/output_schema.py)
    branches = spec.output_schema()["anyOf"]
    for i, first in enumerate(branches):
        for second in branches[i + 1 :]:
            assert _excludes(first, second) or _excludes(second, first), spec.name
