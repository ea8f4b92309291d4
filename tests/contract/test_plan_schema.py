"""The action plan JSON Schema is published (docs/plan.schema.json), versioned, and fresh."""

from __future__ import annotations

import json
from pathlib import Path

from service.plans.model import PLAN_VERSION, Plan, plan_schema

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "plan.schema.json"


def test_the_published_plan_schema_is_what_the_model_generates() -> None:
    committed = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert committed == plan_schema(), "stale: run `python -m service docs plan-schema > docs/plan.schema.json`"


def test_the_schema_is_versioned_and_uses_the_documented_names() -> None:
    schema = plan_schema()
    assert schema["$id"].endswith(f"plan-v{PLAN_VERSION}.json")
    step = schema["$defs"]["Step"]["properties"]
    assert {"id", "tool", "args", "dependsOn", "foreach", "as", "captureAs", "retry", "onError"} <= set(step)
    plan = Plan.model_validate(
        {"goal": "g", "steps": [{"id": "a", "tool": "read_note", "dependsOn": [], "onError": "skip"}]}
    )
    assert plan.version == PLAN_VERSION and plan.steps[0].on_error == "skip"
