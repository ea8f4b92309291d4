"""bridges domain: what only a running Obsidian can do, asked through its Local REST API plugin
(`service.bridges`; configured per vault in `[vaults.bridge]`, docs/bridges.md).

Tools: open_in_obsidian, get_active_note (`app.py`); list_commands, execute_command
(`commands.py`). Without a bridge every tool answers `plugin_missing`; with Obsidian closed,
`plugin_unreachable` (retryable); with a refused key or another certificate,
`plugin_incompatible`.
Touches: no vault file and no table; the plugin's HTTPS routes only.
"""

from __future__ import annotations

from service.tools.bridges import app, commands
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*app.TOOLS, *commands.TOOLS)
