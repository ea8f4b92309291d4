"""The compacted schemas clients are shown (service/tools/schema.py)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from service.tools.models import ToolInput
from service.tools.schema import compact_input, compact_output


class Inner(BaseModel):
    title: str = Field(description="A field named title is data, not the keyword.")
    value: Any = Field(default=None, description="Anything.")


class SampleIn(ToolInput):
    path: str = Field(description="Required.")
    heading: list[str] | None = Field(default=None, description="Optional list.")
    folder: str | list[str] | None = Field(default=None, description="One or many.")
    limit: int = Field(default=5, description="Has a real default.")
    inner: Inner | None = Field(default=None, description="Nested.")


class SampleOut(BaseModel):
    title: str = Field(description="Named title.")
    next_cursor: str | None = Field(default=None, description="Null on the last page.")


def walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found += walk(value)
    elif isinstance(node, list):
        for value in node:
            found += walk(value)
    return found


def test_input_schema_drops_titles_and_null_branches_but_keeps_meaning() -> None:
    schema = compact_input(SampleIn.model_json_schema())
    props = schema["properties"]
    assert props["heading"] == {"type": "array", "items": {"type": "string"}, "description": "Optional list."}
    assert props["folder"] == {
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
        "description": "One or many.",
    }
    assert props["limit"]["default"] == 5 and props["path"]["type"] == "string"
    assert schema["required"] == ["path"] and schema["additionalProperties"] is False
    # no `title` keyword anywhere, but a property called `title` stays
    assert not [n for n in walk(schema) if isinstance(n.get("title"), str)]
    assert "title" in schema["$defs"]["Inner"]["properties"]
    assert "default" not in schema["$defs"]["Inner"]["properties"]["value"]
    assert {k: v for k, v in props["inner"].items() if k != "description"} == {"$ref": "#/$defs/Inner"}


def test_the_model_still_takes_explicit_nulls() -> None:
    assert SampleIn.model_validate({"path": "a", "heading": None, "folder": None}).heading is None


def test_omitted_fields_leave_the_schema_and_required_ones_cannot() -> None:
    schema = compact_input(SampleIn.model_json_schema(), omit=("idempotency_key", "elicit_token"))
    assert "idempotency_key" not in schema["properties"] and "vault" in schema["properties"]
    with pytest.raises(ValueError, match="required"):
        compact_input(SampleIn.model_json_schema(), omit=("path",))


def test_output_schema_keeps_null_branches_results_carry() -> None:
    schema = compact_output(SampleOut.model_json_schema())
    # as branches, not a `type` list: the MCP Inspector's portability check reports type lists
    assert {"type": "null"} in schema["properties"]["next_cursor"]["anyOf"]
    assert "title" in schema["properties"] and "title" not in schema
