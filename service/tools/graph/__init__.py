"""graph domain: the link graph of a vault, and link repair.

Tools: get_backlinks, get_outlinks, graph_neighbors, find_broken_links, find_orphans
(`links.py`, read only); graphrag_query (`graphrag.py`: hybrid seeds expanded along links, fused);
rewrite_links (`rewrite.py`, repoint links to a new target); central_notes, shortest_path,
find_communities (`analytics.py`) and suggest_links (`suggest.py`): graph analytics over the
links the caller may see (`views.py`; algorithms in `service.graph.analytics` and `.mentions`).
Touches: index tables `notes`, `links` (read, through `service.graph.queries`); vault files
(the linking line's text; rewrite_links writes through `VaultFiles`).
"""

from __future__ import annotations

from service.tools.graph import analytics, graphrag, links, rewrite, suggest
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*links.TOOLS, *graphrag.TOOLS, *analytics.TOOLS, *suggest.TOOLS, *rewrite.TOOLS)
