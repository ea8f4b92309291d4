"""sessions domain: workspace sessions traced as JSON lines.

Tools: start_session, end_session (`workspace.py`).
Touches: the `agent_sessions` table and one trace file per session in the vault's trace folder.
"""

from __future__ import annotations

from service.tools.sessions import workspace
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = workspace.TOOLS
