"""admin domain: the server, its configuration, access decisions, telemetry and vaults.

Tools: inspect_acl (`acl.py`); server_health, get_server_config, list_vaults (`server.py`);
get_metrics, get_audit_log (`audit.py`); reload_vault, reset_vault_cache (`vaults.py`).
Touches: settings and the configuration file (read), the metrics registry and the `event_log`
table (read), the indexers, the index tables and the `jobs` table (reset_vault_cache). No tool
here changes a note.
"""

from __future__ import annotations

from service.tools.admin import acl, audit, server, vaults
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*acl.TOOLS, *server.TOOLS, *audit.TOOLS, *vaults.TOOLS)
