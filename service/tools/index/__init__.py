"""index domain: the search index's health and its rebuild.

Tools: index_status, reindex (`status.py`).
Touches: the indexer's in-memory state, index tables (counts), the `jobs` table.
"""

from __future__ import annotations

from service.tools.index import status
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = status.TOOLS
