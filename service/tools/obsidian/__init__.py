"""obsidian domain: Obsidian's own file formats, evaluated without Obsidian running.

Tools: query_base (`bases.py`: Obsidian Bases `.base` files and ```base blocks, through the
engine in `service.bases`). Touches: index tables `notes`, `links` (read only); the `.base`
file or note named in a call.
"""

from __future__ import annotations

from service.tools.obsidian import bases
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*bases.TOOLS,)
