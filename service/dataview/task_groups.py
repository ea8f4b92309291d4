"""A TASK query's rows as JSON: a task's own fields (`task_fields`), and the groups of a grouped
TASK result (`render_group`, `group_paths`).

A group's members are tasks, or groups again after a second GROUP BY (Dataview's
`extractTaskGroupings` nests them: `{key, rows}` of `{key, rows}`); a FLATTEN after the GROUP BY
leaves one member where a list was (`FLATTEN rows`). Members that are neither tasks nor groups
(a FLATTEN of some other value) are refused as a query error, never an internal error (both
forms answered internal_error: the renderer read every member as a task). Touches nothing
outside itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.dataview.flat import Flat
from service.dataview.items import Inherited
from service.dataview.values import typed
from service.errors import QuerySyntaxError

_TASK_KEYS = frozenset(
    {"text", "visual", "line", "lineCount", "path", "link", "section", "tags", "outlinks", "children", "task"}
    | {"annotated", "parent", "blockId", "status", "checked", "completed", "fullyCompleted"}
)


def task_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    """The task's own fields and those it inherits from its page (not the task's built-in keys)."""
    while isinstance(row, Flat):  # a FLATTENed task
        row = row.base
    own = dict.items(row) if isinstance(row, Inherited) else row.items()
    return {k: v for k, v in own if k not in _TASK_KEYS}


def task_path(row: Mapping[str, Any]) -> Any:
    """The path of the task's note, under any FLATTEN (`FLATTEN 1 AS path` names a column, not the note)."""
    while isinstance(row, Flat):
        row = row.base
    return row.get("path")


def _is_group(value: Any) -> bool:
    return isinstance(value, Mapping) and "rows" in value and "key" in value and "path" not in value


def _members(group: Mapping[str, Any]) -> list[Any]:
    rows = group["rows"]
    members = rows if isinstance(rows, list) else [rows]
    for member in members:
        if not isinstance(member, Mapping):
            raise QuerySyntaxError(
                "a grouped TASK query's groups hold values that are no tasks",
                details={"found": typed(member)["type"]},
                hint="FLATTEN a list of tasks (rows), or group once more: a TASK query shows tasks.",
            )
    return members


def render_group(group: Mapping[str, Any], task: Callable[[Any], Any], look: Callable[[int], None]) -> dict[str, Any]:
    """`{id, tasks}` of a group, its member groups rendered the same way inside `tasks`."""
    members = _members(group)
    look(len(members) + 1)
    return {
        "id": typed(group["key"]),
        "tasks": [render_group(m, task, look) if _is_group(m) else task(m) for m in members],
    }


def group_paths(group: Mapping[str, Any]) -> list[str]:
    """The paths of every task of a group, its member groups' included."""
    out: list[str] = []
    for member in _members(group):
        out.extend(group_paths(member) if _is_group(member) else [task_path(member)])
    return out
