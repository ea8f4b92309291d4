"""The action plan document: a goal, assumptions, typed parameters and steps (version "1").

A step names any tool of the catalog with its `args`; `dependsOn` orders it after other steps
(references to earlier results order it too), `foreach` runs it once per item of a list (a
literal list or a reference such as `$steps.find.items[*].path`; the item is `$item`, or the
name given in `as`), `captureAs` names its result for later steps, `retry` repeats it on
retryable error codes and `onError` says what a failure does to the rest: `stop` ends the plan,
`skip` skips the steps that depend on it, `continue` runs them anyway (its result is null).
`plan_schema()` is the published JSON Schema (docs/plan.schema.json, checked fresh by a test);
`plan_hash` is what a human's confirmation of a plan is bound to.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

PLAN_VERSION = "1"
STEP_ID = r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$"
ParamType = Literal["string", "integer", "number", "boolean", "array", "object"]
OnError = Literal["stop", "skip", "continue"]


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Retry(_Doc):
    attempts: int = Field(default=2, ge=1, le=10, description="Attempts in all, the first included.")
    backoff_ms: int = Field(
        default=200, ge=0, le=60_000, alias="backoffMs", description="Wait before the 2nd attempt; doubles after."
    )


class Param(_Doc):
    name: str = Field(pattern=STEP_ID, description="Referenced as ${name} inside step args.")
    type: ParamType = Field(default="string", description="JSON type of the value.")
    default: Any = Field(default=None, description="Value when none is given; no default makes it required.")
    description: str = Field(default="", max_length=500, description="What the value is for.")


class Step(_Doc):
    id: str = Field(pattern=STEP_ID, description="Unique step id, referenced as $steps.<id>.")
    tool: str = Field(min_length=1, max_length=100, description="A tool of the catalog, by name.")
    args: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments; may hold references.")
    depends_on: list[str] = Field(default_factory=list, alias="dependsOn", description="Steps that run first.")
    foreach: list[Any] | str | None = Field(
        default=None, description="Run once per item: a list, or a reference like $steps.find.items[*].path."
    )
    item_name: str = Field(default="item", alias="as", pattern=STEP_ID, description="Name of the foreach item.")
    capture_as: str | None = Field(
        default=None, alias="captureAs", pattern=STEP_ID, description="Also name the result $steps.<name>."
    )
    retry: Retry | None = Field(default=None, description="Retry on retryable error codes.")
    on_error: OnError = Field(default="stop", alias="onError", description="stop | skip (dependents) | continue.")
    description: str = Field(default="", max_length=500, description="What the step is for.")


class Plan(_Doc):
    version: Literal["1"] = Field(default="1", description="Plan format version.")
    goal: str = Field(min_length=1, max_length=1000, description="What the plan achieves.")
    assumptions: list[str] = Field(default_factory=list, max_length=50, description="What the planner assumed.")
    params: list[Param] = Field(default_factory=list, max_length=50, description="Parameters, as ${name}.")
    steps: list[Step] = Field(min_length=1, description="The steps (ordered by dependencies, then as listed).")


def plan_schema() -> dict[str, Any]:
    schema = Plan.model_json_schema(by_alias=True)
    schema["$id"] = f"https://vaultgate.dev/schemas/plan-v{PLAN_VERSION}.json"
    schema["title"] = "vaultgate action plan"
    return schema


def plan_hash(plan: Plan, params: dict[str, Any] | None = None) -> str:
    """A stable hash of the plan and the parameter values it runs with."""
    body = {"plan": plan.model_dump(mode="json", by_alias=True), "params": params or {}}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:32]
