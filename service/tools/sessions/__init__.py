"""sessions domain: workspace sessions traced as JSON lines; action plans, their undo, macros.

Tools: start_session, end_session (`workspace.py`); validate_plan, execute_plan, get_plan_run,
cancel_plan (`plans.py`), save_macro, list_macros, run_macro, delete_macro (`macros.py`) — added
by `plan_tools(registry)`: plans run other tools by name; undo_last_plan (`undo.py`), which
names the steps whose tools acted in Obsidian, is added with them.
Touches: the `agent_sessions` table and one trace file per session in the vault's trace folder;
the `plan_runs`, `plan_journal`, `plan_macros` tables and, through each plan step's own tool, the vault.
"""

from __future__ import annotations

from service.tools.sessions import macros, plans, undo, workspace
from service.tools.spec import Catalog, ToolSpec

TOOLS: tuple[ToolSpec, ...] = workspace.TOOLS


def plan_tools(registry: Catalog) -> tuple[ToolSpec, ...]:
    """The tools that look other tools up by name when called (the registry is complete by then)."""
    return plans.tools(registry) + macros.tools(registry) + undo.tools(registry)
