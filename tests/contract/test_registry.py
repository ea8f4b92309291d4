"""Meta-tests driven by the registry: what clients are told matches what the pipeline enforces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.tools import build_registry
from service.tools.registry import ToolSpec

REPO = Path(__file__).resolve().parents[2]
TOOLS_MD = REPO.parent / "shared" / "design" / "TOOLS.md"
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
    assert tool.annotations.idempotent_hint is spec.idempotent
    assert tool.description and tool.title


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_every_tool_takes_the_pipeline_arguments(spec: ToolSpec) -> None:
    props = spec.input_schema().get("properties", {})
    assert {"vault", "idempotency_key", "elicit_token"} <= set(props)
    assert spec.input_schema().get("additionalProperties") is False


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_output_schema_is_an_object_schema(spec: ToolSpec) -> None:
    schema = spec.output_schema()
    assert schema.get("type") == "object" and schema.get("properties")


@pytest.mark.skipif(not TOOLS_MD.exists(), reason="design docs not beside the repo")
def test_tool_names_come_from_the_catalog() -> None:
    catalog = set(re.findall(r"\b([a-z][a-z0-9_]+)\b", TOOLS_MD.read_text()))
    unknown = [s.name for s in SPECS if s.name not in catalog]
    assert not unknown, f"tools not in TOOLS.md: {unknown}"


def test_every_tool_is_exercised_by_a_test() -> None:
    corpus = "\n".join(
        p.read_text(encoding="utf-8")
        for p in (REPO / "tests").rglob("*.py")
        if "contract" not in p.parts and "bench" not in p.parts
    )
    missing = [s.name for s in SPECS if f'"{s.name}"' not in corpus and f"'{s.name}'" not in corpus]
    assert not missing, f"tools never called by a test: {missing}"
