"""Which tasks are open: the one definition every count and filter of tasks uses.

A task is open (the Tasks plugin's `not done`) when the type of its status is to-do, in progress or
on hold (the plugin's ON_HOLD, Tasks 7.23); done, cancelled and non-task statuses are closed (its
`done`). The type of a status character is
the vault's Tasks plugin settings' (`service.markdown.tasks.status_table`: the statuses they
register, by default `' '`, `x`, `/`, `-`); a character they do not name is a to-do, so open, as the
plugin reads it (`[X]`, `[?]`, a `[-]` whose status the settings deleted). Used by list_tasks
(`open` / `closed`), tasks_filter (`done`,
`not done`, `group by status`, `is blocked`), set_task_status (the status after a recurrence),
index_status' `open_tasks` (the indexer's counts and a restricted caller's) and the plane's
digest.

Which checkbox items are tasks at all: with the plugin's global filter (`global_filter`), only
those whose text contains it, as the plugin reads them — for tasks_filter, list_tasks (unless asked
for every checkbox), index_status' `tasks` / `open_tasks` and the digest alike.
Which format a task's fields are read in (`task_format`): the plugin's settings' `taskFormat`, as
the plugin reads only that one; both when the vault has no Tasks settings.
Touches: `.obsidian/plugins/obsidian-tasks-plugin/data.json` (read-only).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from service.markdown import tasks as tk
from service.vault.settings_files import read_json

if TYPE_CHECKING:
    from service.vault.vault import Vault

StatusTable = dict[str, tuple[tk.StatusType, str]]
OPEN_TYPES: tuple[tk.StatusType, ...] = ("todo", "in_progress", "on_hold")


def is_open(kind: str) -> bool:
    """A task of this status type is still to be done."""
    return kind in OPEN_TYPES


def vault_statuses(root: Path) -> StatusTable:
    """The vault's statuses: built-in plus the Tasks plugin's custom ones (its settings)."""
    return tk.status_table(read_json(root, tk.TASKS_PLUGIN_DATA))


def closed_statuses(table: StatusTable) -> tuple[str, ...]:
    """The status characters of closed tasks (every other character is open)."""
    return tuple(sorted(char for char, (kind, _) in table.items() if not is_open(kind)))


def open_sql(table: StatusTable, column: str = "status") -> tuple[str, tuple[str, ...]]:
    """An SQL condition on the status `column` keeping the open tasks, and its parameters."""
    closed = closed_statuses(table)
    return (f"{column} NOT IN ({','.join('?' * len(closed))})" if closed else "1"), closed


def open_count(by_status: dict[str, int], table: StatusTable) -> int:
    """How many tasks are open, from the number of tasks of each status character."""
    return sum(n for char, n in by_status.items() if is_open(tk.status_type(table, char)))


def task_format(root: Path) -> tk.Style | None:
    """The format the vault's Tasks plugin reads task fields in: 'dataview' when its settings'
    `taskFormat` says so, else the emoji (its default, 'tasksPluginEmoji'); None (both formats,
    Dataview's `[due:: …]` too) when the vault has no Tasks settings."""
    data = read_json(root, tk.TASKS_PLUGIN_DATA)
    if not isinstance(data, dict):
        return None
    return "dataview" if data.get("taskFormat") == "dataview" else "emoji"


def global_filter(vault: Vault) -> str:
    """The Tasks plugin's global filter for `vault` ('' for none): the vault's `tasks_global_filter`
    setting when given (`""` turns it off), else the plugin settings' `globalFilter`."""
    configured = vault.config.tasks_global_filter
    if configured is None:
        data = read_json(vault.paths.root, tk.TASKS_PLUGIN_DATA)
        found = data.get("globalFilter") if isinstance(data, dict) else None
        configured = found if isinstance(found, str) else ""
    return configured if configured.strip() else ""


def tasks_sql(vault: Vault, column: str = "text") -> tuple[str, tuple[str, ...]]:
    """An SQL condition on a task's `column` keeping the checkbox items that are tasks (those
    holding the global filter, when the vault has one), and its parameters."""
    found = global_filter(vault)
    return (f"instr({column}, ?) > 0", (found,)) if found else ("1", ())
