"""A plan's parameter values (`bind_params`) and the problem record every check reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.plans.model import Param
from service.plans.refs import LATE


@dataclass
class Problem:
    step: str | None
    code: str
    message: str
    details: dict[str, Any] | None = None  # the facts the run's own error names (a refusal of the note's text)
    hint: str | None = None  # and what it advises


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}


def bind_params(
    declared: list[Param], given: dict[str, Any], *, late: bool = False
) -> tuple[dict[str, Any], list[Problem]]:
    """The parameter values: given ones type-checked, defaults filled in, required ones present
    (with `late`, a missing one is `LATE`: known only at run time, as when a macro is saved)."""
    problems: list[Problem] = []
    names = {p.name for p in declared}
    for name in given:
        if name not in names:
            problems.append(Problem(None, "unknown_param", f"the plan has no parameter {name!r}"))
    values: dict[str, Any] = {}
    for p in declared:
        if p.name in given:
            value = given[p.name]
            is_bool = isinstance(value, bool)
            if not isinstance(value, _JSON_TYPES[p.type]) or (is_bool and p.type != "boolean"):
                problems.append(Problem(None, "bad_param", f"parameter {p.name!r} must be a {p.type}"))
            values[p.name] = value
        elif p.default is not None:
            values[p.name] = p.default
        elif late:
            values[p.name] = LATE
        else:
            problems.append(Problem(None, "missing_param", f"parameter {p.name!r} needs a value"))
    return values, problems
