"""References inside a plan's step arguments, and their resolution.

- `"$steps.<id>.<path>"` as a whole value is that step's result (any JSON type), selected with a
  path of `.name`, `[N]` and `[*]` (every element: `$steps.find.items[*].path` is a list);
- `"$item"` / `"$item.<path>"` (or the step's `as` name) is the current foreach item;
- `"${name}"` as a whole value is the parameter's typed value; inside a longer string `${name}`,
  `${item.path}` and `${steps.<id>.<path>}` are replaced by their text.

`references` lists what a value refers to (validation and the dependency graph); `resolve`
replaces references with values from a `Scope` and raises `Unresolved` when a step's result is not
known yet (validation resolves what it can before anything runs) or `RefError` when a path does
not fit the value. A mutating step's result is known at validation only in the fields its
arguments decide (`Scope.known`: a create_note's `path`, each `items[*].path` of a
bulk_create_notes, each call's `path` of a foreach step, `$steps.mk[*].path`); another field of
it is `Unresolved`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_NAME = r"[A-Za-z_][A-Za-z0-9_-]*"
_SEG = re.compile(rf"\.({_NAME})|\[(\d+|\*)\]")
_WHOLE_STEP = re.compile(rf"^\$steps\.({_NAME})((?:\.{_NAME}|\[(?:\d+|\*)\])*)$")
_WHOLE_VAR = re.compile(rf"^\$({_NAME})((?:\.{_NAME}|\[(?:\d+|\*)\])*)$")
_INLINE = re.compile(rf"\$\{{({_NAME})((?:\.{_NAME}|\[(?:\d+|\*)\])*)\}}")


class RefError(ValueError):
    """A reference that cannot be followed (unknown name, a path that does not fit the value)."""


class _Late:
    """The value of a parameter that is given only when the plan runs (a macro being saved)."""

    def __repr__(self) -> str:
        return "LATE"


LATE: Any = _Late()


class Unresolved(Exception):  # noqa: N818 - a signal: the value is only known at run time
    def __init__(self, step: str) -> None:
        super().__init__(step)
        self.step = step


@dataclass(frozen=True, slots=True)
class Ref:
    kind: str  # "step" | "param" | "item"
    name: str
    path: str


@dataclass
class Scope:
    params: dict[str, Any] = field(default_factory=dict)
    steps: dict[str, Any] = field(default_factory=dict)  # step id or captureAs -> result
    item: tuple[str, Any] | None = None
    # step id or captureAs -> what the check knows of a mutating step's result: its fields known
    # now (`{"path": ...}`; a foreach step's, a list of them; None where the run tells)
    known: dict[str, Any] = field(default_factory=dict)


def _refs_in_string(text: str, item_name: str | None) -> list[Ref]:
    m = _WHOLE_STEP.match(text)
    if m:
        return [Ref("step", m.group(1), m.group(2))]
    m = _WHOLE_VAR.match(text)
    if m and m.group(1) != "steps" and item_name is not None and m.group(1) == item_name:
        return [Ref("item", m.group(1), m.group(2))]
    out: list[Ref] = []
    for m in _INLINE.finditer(text):
        name, path = m.group(1), m.group(2)
        if name == "steps":
            sub = re.match(rf"^\.({_NAME})(.*)$", path)
            if sub is None:
                raise RefError(f"{m.group(0)!r}: name a step after steps.")
            out.append(Ref("step", sub.group(1), sub.group(2)))
        elif item_name is not None and name == item_name:
            out.append(Ref("item", name, path))
        else:
            out.append(Ref("param", name, path))
    return out


def not_a_list(found: Any) -> str:
    """Why a `foreach` that resolved to `found` (not a list) cannot run, with the forms that give a
    list: '$find.items' is no reference (it stays that text), '$steps.find' is the whole result."""
    if isinstance(found, str):
        what = f"the text {found[:80]!r} (no reference: it starts with neither '$steps.' nor '${{')"
    elif isinstance(found, dict):
        what = f"an object with the fields {', '.join(map(str, list(found)[:8]))}"
    else:
        what = "null" if found is None else f"a {type(found).__name__}"
    return (
        f"foreach must resolve to a list, not {what}: name a list of an earlier step's result as "
        "'$steps.<id>.<field>' (e.g. '$steps.find.items[*].path'), or a list parameter as '${name}'"
    )


def references(value: Any, item_name: str | None = None) -> list[Ref]:
    """Every reference inside `value` (strings, lists and objects, keys excluded)."""
    if isinstance(value, str):
        return _refs_in_string(value, item_name) if "$" in value else []
    if isinstance(value, list):
        return [r for v in value for r in references(v, item_name)]
    if isinstance(value, dict):
        return [r for v in value.values() for r in references(v, item_name)]
    return []


def select(value: Any, path: str, where: str) -> Any:
    """Follow `.name`, `[N]` and `[*]` from `value`; `[*]` maps the rest of the path over a list."""
    segments = [(m.group(1), m.group(2)) for m in _SEG.finditer(path)]
    return _select(value, segments, where)


def _select(value: Any, segments: list[tuple[str | None, str | None]], where: str) -> Any:
    for i, (name, index) in enumerate(segments):
        if name is not None:
            if not isinstance(value, dict) or name not in value:
                raise RefError(f"{where}: no field {name!r} here")
            value = value[name]
        elif index == "*":
            if not isinstance(value, list):
                raise RefError(f"{where}: [*] needs a list")
            return [_select(v, segments[i + 1 :], where) for v in value]
        else:
            assert index is not None
            if not isinstance(value, list) or int(index) >= len(value):
                raise RefError(f"{where}: no element [{index}]")
            value = value[int(index)]
    return value


def _select_known(value: Any, segments: list[tuple[str | None, str | None]], step: str, where: str) -> Any:
    """`_select` over what the check knows of a mutating step's result (`Scope.known`): a field
    or call it does not know (absent from an object, None) is `Unresolved`, never an error: the
    run's result may hold it; so is an object (the check knows only some of its fields). A path
    that does not fit the known shape (a field of a text, of a foreach step's list) is the
    `RefError` the run then answers."""
    for i, (name, index) in enumerate(segments):
        if value is None:
            raise Unresolved(step)
        if name is not None:
            if not isinstance(value, dict):
                raise RefError(f"{where}: no field {name!r} here")
            if name not in value:
                raise Unresolved(step)
            value = value[name]
        elif index == "*":
            if not isinstance(value, list):
                raise RefError(f"{where}: [*] needs a list")
            return [_select_known(v, segments[i + 1 :], step, where) for v in value]
        else:
            assert index is not None
            if not isinstance(value, list) or int(index) >= len(value):
                raise RefError(f"{where}: no element [{index}]")
            value = value[int(index)]
    if value is None or isinstance(value, dict | list):  # unknown, or only part of what the run gives
        raise Unresolved(step)
    return value


def _lookup(ref: Ref, scope: Scope, where: str) -> Any:
    if ref.kind == "step":
        if ref.name not in scope.steps:
            if ref.name not in scope.known or not ref.path:  # the whole result: the run tells
                raise Unresolved(ref.name)
            segments = [(m.group(1), m.group(2)) for m in _SEG.finditer(ref.path)]
            return _select_known(scope.known[ref.name], segments, ref.name, where)
        return select(scope.steps[ref.name], ref.path, where)
    if ref.kind == "item":
        if scope.item is None:
            raise RefError(f"{where}: ${ref.name} is only defined inside a foreach step")
        return select(scope.item[1], ref.path, where)
    if ref.name not in scope.params:
        raise RefError(f"{where}: unknown parameter {ref.name!r}")
    if scope.params[ref.name] is LATE:
        raise Unresolved(ref.name)
    return select(scope.params[ref.name], ref.path, where)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def resolve(value: Any, scope: Scope, where: str = "args") -> Any:
    """`value` with every reference replaced (see the module docstring)."""
    if isinstance(value, list):
        return [resolve(v, scope, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: resolve(v, scope, f"{where}.{k}") for k, v in value.items()}
    if not isinstance(value, str) or "$" not in value:
        return value
    item_name = scope.item[0] if scope.item is not None else None
    whole = _WHOLE_STEP.match(value) or (_WHOLE_VAR.match(value) if item_name else None)
    if whole is not None and (whole.re is _WHOLE_STEP or whole.group(1) == item_name):
        [ref] = _refs_in_string(value, item_name)
        return _lookup(ref, scope, where)
    inline = _INLINE.fullmatch(value)
    if inline is not None:  # "${name}" alone keeps the value's type
        [ref] = _refs_in_string(value, item_name)
        return _lookup(ref, scope, where)

    def one(m: re.Match[str]) -> str:
        [ref] = _refs_in_string(m.group(0), item_name)
        return _text(_lookup(ref, scope, where))

    return _INLINE.sub(one, value)


def known_parts(args: dict[str, Any], late: set[str], scope: Scope) -> dict[str, Any]:
    """What of the `late` arguments (those `resolve` finds waiting for a step's result) is known
    now: of a list, the elements that resolve, and of an object, the fields that do, at any
    depth; a text or a whole reference still waiting is left out. A create_relations whose
    second relation names `$steps.e.created[0].name` keeps its first relation, as written: the
    check lists the note that one changes (a preview never lists less than the run changes)."""
    parts = {key: _known(args[key], scope, key) for key in sorted(late) if key in args}
    return {key: value for key, value in parts.items() if isinstance(value, list | dict)}


_GONE: Any = object()  # a value still waiting (or a reference that fails): left out


def _known(value: Any, scope: Scope, where: str) -> Any:
    try:
        if isinstance(value, list):
            found = [_known(v, scope, f"{where}[{i}]") for i, v in enumerate(value)]
            return [v for v in found if v is not _GONE]
        if isinstance(value, dict):
            fields = {k: _known(v, scope, f"{where}.{k}") for k, v in value.items()}
            return {k: v for k, v in fields.items() if v is not _GONE}
        return resolve(value, scope, where)
    except (Unresolved, RefError):
        return _GONE
