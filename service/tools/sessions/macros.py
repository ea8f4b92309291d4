"""sessions domain: save_macro, list_macros, run_macro, delete_macro — saved plans with parameters.

Touches: the `plan_macros` table of the state database (per vault); run_macro runs the saved
plan exactly as execute_plan does (`plans.start_run`: validation with the given values, one
confirmation when a call would ask, the journal, progress, background runs). A macro is
validated when saved (parameters without a value count as known at run time) and again when it
runs; list_macros shows each macro's parameters as a JSON Schema an agent can fill in.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from pydantic import BaseModel, Field

from service.errors import ToolNotFound, ValidationFailed
from service.plans.check import check_plan
from service.plans.macros import Macro
from service.plans.model import STEP_ID, Param
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.tools.models import JsonValue, ToolInput, ToolOutput
from service.tools.sessions.plan_host import PlanHost, parse_plan
from service.tools.sessions.plans import (
    PLAN_DOC,
    ProblemItem,
    RunOut,
    checked_plan,
    dry_run_out,
    needs_human,
    plan_preview,
    start_run,
)
from service.tools.spec import Catalog, ToolSpec

_NAME = Field(pattern=STEP_ID, max_length=64, description="Macro name (letters, digits, _ and -).")


class SaveIn(ToolInput):
    name: str = _NAME
    description: str = Field(default="", max_length=1000, description="What the macro does, for list_macros.")
    plan: dict[str, JsonValue] = Field(description=PLAN_DOC + " Its params are the macro's parameters.")


class ParamItem(BaseModel):
    name: str = Field(description="Parameter name (${name} in the plan).")
    type: str = Field(description="JSON type.")
    required: bool = Field(description="True when it has no default.")
    default: JsonValue = Field(default=None, description="Default value.")
    description: str = Field(description="What it is for.")


class SaveOut(ToolOutput):
    name: str = Field(description="The macro.")
    replaced: bool = Field(description="True when a macro of that name was replaced.")
    params: list[ParamItem] = Field(description="Its parameters.")


class MacroItem(BaseModel):
    name: str = Field(description="Macro name (run_macro).")
    description: str = Field(description="What it does.")
    goal: str = Field(description="The plan's goal.")
    steps: int = Field(description="Steps in the plan.")
    params: list[ParamItem] = Field(description="Its parameters.")
    params_schema: dict[str, JsonValue] = Field(description="JSON Schema of run_macro's `params` for it.")


class ListIn(ToolInput):
    pass


class ListOut(ToolOutput):
    items: list[MacroItem] = Field(description="The vault's macros, by name.")


class RunIn(ToolInput):
    name: str = _NAME
    params: dict[str, JsonValue] = Field(default_factory=dict, description="Values of the macro's parameters.")
    background: bool = Field(default=False, description="Return a run_id at once; poll get_plan_run.")
    dry_run: bool = Field(default=False, description="Validate with these values and return the effects; run nothing.")


class NameIn(ToolInput):
    name: str = _NAME


class DeleteOut(ToolOutput):
    name: str = Field(description="The deleted macro.")
    deleted: bool = Field(description="Always true (an unknown name is not_found).")


def _params(params: list[Param]) -> list[ParamItem]:
    return [
        ParamItem(name=p.name, type=p.type, required=p.default is None, default=p.default, description=p.description)
        for p in params
    ]


def params_schema(params: list[Param]) -> dict[str, Any]:
    properties = {p.name: {"type": p.type, "description": p.description} for p in params}
    for p in params:
        if p.default is not None:
            properties[p.name]["default"] = p.default
    required = [p.name for p in params if p.default is None]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


async def save_macro(ctx: ToolContext, args: SaveIn, *, registry: Catalog) -> SaveOut:
    plan = parse_plan(args.plan)
    checked = await check_plan(plan, {}, PlanHost(ctx, registry), late_params=True)
    if not checked.ok:
        raise ValidationFailed(
            f"the macro's plan has {len(checked.problems)} problem(s)",
            details={
                "field": "plan",
                "problems": [{"step": p.step, "code": p.code, "message": p.message} for p in checked.problems],
            },
            hint="validate_plan lists them with their step ids.",
        )
    replaced = await ctx.services.plans.macros.save(
        ctx.vault.id, args.name, args.description, plan, ctx.principal.subject
    )
    return SaveOut(name=args.name, replaced=replaced, params=_params(plan.params))


async def list_macros(ctx: ToolContext, args: ListIn) -> ListOut:
    macros = await ctx.services.plans.macros.all(ctx.vault.id)
    return ListOut(
        items=[
            MacroItem(
                name=m.name,
                description=m.description,
                goal=m.plan.goal,
                steps=len(m.plan.steps),
                params=_params(m.plan.params),
                params_schema=params_schema(m.plan.params),
            )
            for m in macros
        ]
    )


async def _macro(ctx: ToolContext, name: str) -> Macro:
    macro = await ctx.services.plans.macros.get(ctx.vault.id, name)
    if macro is None:
        raise ToolNotFound(f"no macro {name!r} in this vault", details={"name": name}, hint="list_macros lists them.")
    return macro


async def run_macro(ctx: ToolContext, args: RunIn, *, registry: Catalog) -> RunOut:
    macro = await _macro(ctx, args.name)
    checked = await checked_plan(ctx, registry, macro.plan.model_dump(mode="json", by_alias=True), args.params)
    if not checked.ok:
        raise ValidationFailed(
            f"the macro cannot run with these values: {len(checked.problems)} problem(s)",
            details={
                "field": "params",
                "problems": [
                    ProblemItem(step=p.step, code=p.code, message=p.message).model_dump() for p in checked.problems
                ],
            },
            hint="list_macros shows its parameters.",
        )
    if args.dry_run:
        return dry_run_out(checked)
    return await start_run(ctx, checked, background=args.background, registry=registry)


async def run_confirm_when(ctx: ToolContext, args: RunIn, *, registry: Catalog) -> ChangePreview | None:
    if args.dry_run:
        return None
    macro = await _macro(ctx, args.name)
    checked = await checked_plan(ctx, registry, macro.plan.model_dump(mode="json", by_alias=True), args.params)
    if not checked.ok or not await needs_human(ctx, checked, registry):
        return None
    return plan_preview(ctx, checked, f"macro {macro.name}\n")


async def delete_macro(ctx: ToolContext, args: NameIn) -> DeleteOut:
    if not await ctx.services.plans.macros.delete(ctx.vault.id, args.name):
        raise ToolNotFound(
            f"no macro {args.name!r} in this vault", details={"name": args.name}, hint="list_macros lists them."
        )
    return DeleteOut(name=args.name, deleted=True)


def tools(registry: Catalog) -> tuple[ToolSpec, ...]:
    return (
        ToolSpec(
            name="save_macro",
            domain="sessions",
            title="Save a plan as a macro",
            description="Save an action plan under a name in this vault, with its params as the macro's typed "
            "parameters (${name}); it is validated now and again each time it runs. Replaces a macro of that name.",
            input_model=SaveIn,
            output_model=SaveOut,
            handler=partial(save_macro, registry=registry),
            scopes=("write:vault",),
            scope_class="write",
            mutating=True,
            tags=("sessions", "plans"),
        ),
        ToolSpec(
            name="list_macros",
            domain="sessions",
            title="List macros",
            description="The saved macros of this vault with their goal and parameters (and a JSON Schema of them).",
            input_model=ListIn,
            output_model=ListOut,
            handler=list_macros,
            tags=("sessions", "plans"),
        ),
        ToolSpec(
            name="run_macro",
            domain="sessions",
            title="Run a macro",
            description="Run a saved macro with values for its parameters, exactly as execute_plan runs a plan "
            "(validated first, one confirmation when needed, journaled for undo_last_plan, progress, background).",
            input_model=RunIn,
            output_model=RunOut,
            handler=partial(run_macro, registry=registry),
            scopes=("write:vault",),
            scope_class="write",
            mutating=True,
            confirm="conditional",
            confirm_when=partial(run_confirm_when, registry=registry),
            idempotent=False,
            forwards_destructive=True,
            task_support=True,
            tags=("sessions", "plans"),
        ),
        ToolSpec(
            name="delete_macro",
            domain="sessions",
            title="Delete a macro",
            description="Delete a saved macro of this vault (the vault's files are not touched).",
            input_model=NameIn,
            output_model=DeleteOut,
            handler=delete_macro,
            scopes=("delete:vault",),
            scope_class="delete",
            mutating=True,
            tags=("sessions", "plans"),
        ),
    )
