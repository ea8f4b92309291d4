"""Meta-tests driven by the registry: what clients are told matches what the pipeline enforces."""

from __future__ import annotations

import pytest

from service.tools.output_schema import result_branch
from service.tools.registry import build_registry
from service.tools.spec import ToolSpec

SPECS = list(build_registry())


def _ids(spec: ToolSpec) -> str:
    return spec.name


def test_registry_builds_and_has_tools() -> None:
    assert len(SPECS) >= 2


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_annotations_are_derived_from_the_spec(spec: ToolSpec) -> None:
    tool = spec.to_mcp()
    assert tool.annotations is not None
    assert tool.annotations.read_only_hint is (not spec.mutating)
    if spec.destructive:
        assert spec.mutating and tool.annotations.destructive_hint is True
        assert spec.confirm != "never"
    assert tool.annotations.idempotent_hint is (spec.idempotent or not spec.mutating)
    assert tool.description and tool.title


# Input fields whose presence means a call can replace or remove what is already there.
DESTRUCTIVE_ARGS = {"overwrite", "permanent", "if_exists"}


def _can_destroy(spec: ToolSpec) -> bool:
    """Judged from what the tool accepts, independently of how annotations are derived."""
    props = spec.input_schema().get("properties", {})
    if DESTRUCTIVE_ARGS & set(props):
        return True
    mode = props.get("mode", {})
    if "overwrite" in (mode.get("enum") or []):
        return True
    return "delete:vault" in spec.scopes or spec.destructive


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_tools_that_can_delete_or_overwrite_advertise_destructive_hint(spec: ToolSpec) -> None:
    hints = spec.to_mcp().annotations
    assert hints is not None
    if _can_destroy(spec):
        assert spec.mutating and hints.destructive_hint is True, f"{spec.name} can delete/overwrite"
    if not spec.mutating:
        assert hints.read_only_hint is True and hints.destructive_hint is None
        assert hints.idempotent_hint is True, "reading twice is the same as reading once"
    else:
        assert hints.read_only_hint is False


def test_the_notes_tools_that_replace_or_delete_are_destructive_without_always_confirming() -> None:
    by_name = {s.name: s for s in SPECS}
    for name in ("delete_note", "write_note", "bulk_create_notes", "copy_note", "create_note"):
        hints = by_name[name].to_mcp().annotations
        assert hints is not None and hints.destructive_hint is True, name
        assert by_name[name].confirm == "conditional", f"{name} must not confirm every call"
    for name in ("append_note", "prepend_note", "create_folder"):
        hints = by_name[name].to_mcp().annotations
        assert hints is not None and hints.destructive_hint is False, name
    read = by_name["read_note"].to_mcp().annotations
    assert read is not None and read.read_only_hint is True


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_every_tool_takes_the_pipeline_arguments(spec: ToolSpec) -> None:
    props = spec.input_schema().get("properties", {})
    assert {"vault", "idempotency_key", "elicit_token"} <= set(props)
    assert spec.input_schema().get("additionalProperties") is False


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_output_schema_is_an_object_schema(spec: ToolSpec) -> None:
    schema = spec.output_schema()
    assert schema.get("type") == "object"
    result = result_branch(schema)
    assert result.get("type") == "object" and result.get("properties")
