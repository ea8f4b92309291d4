"""A plan step's refusals known before it runs: its tool's `static_check` (`ToolSpec.static_check`:
what the configuration, the path ACL and the call's arguments alone decide, such as a bridge tool's
`plugin_missing`, a command id not in `safe_commands`, a folder the caller may not write), run by
`service.plans.check` on each call whose arguments are all known, as the call itself would run it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from service.errors import VaultgateError

StaticCheck = Callable[[Any, Any], Awaitable[None]]


async def refusal(
    check: StaticCheck | None, model: type[BaseModel], args: dict[str, Any], ctx: Any
) -> tuple[str, str, dict[str, Any], str | None] | None:
    """(error code, message, details, hint) of the call the check refuses, as the call answers
    them (a plan's problem carries all four: `params.Problem`), None when it passes. Arguments that do
    not validate are reported by the checker with the model. A note the check does not find is no
    refusal: an earlier step of the plan may make it (the call answers `note_not_found` at run time;
    a memory relation's target found nowhere, `unknown_endpoint`, likewise: the plan's own check
    decides both over its earlier steps, `service.plans.memory_effects`)."""
    if check is None:
        return None
    try:
        validated = model.model_validate(args)
    except ValidationError:
        return None
    try:
        await check(ctx, validated)
    except VaultgateError as exc:
        if exc.code != "note_not_found" and exc.details.get("reason") != "unknown_endpoint":
            return exc.code, exc.message, exc.details, exc.hint
    return None
