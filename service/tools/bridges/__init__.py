"""bridges domain: what only a running Obsidian can do, asked through its Local REST API plugin
(`service.bridges`; configured per vault in `[vaults.bridge]`, docs/bridges.md).

Tools: open_in_obsidian, get_active_note (`app.py`); list_commands, execute_command
(`commands.py`); through the vaultgate companion plugin: list_templater_templates,
execute_template, list_quickadd_actions, trigger_quickadd, makemd_list_spaces, makemd_query
(`companion.py`). Without a bridge every tool answers `plugin_missing`; with Obsidian closed,
`plugin_unreachable` (retryable); with a refused key or another certificate,
`plugin_incompatible`.
Touches: no vault file and no table; the plugin's HTTPS routes only.
"""

from __future__ import annotations

from service.tools.bridges import app, commands, companion
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*app.TOOLS, *commands.TOOLS, *companion.TOOLS)
