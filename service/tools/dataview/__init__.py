"""dataview domain: Dataview queries evaluated by the server, without Obsidian running.

Tools: search_dql (run a DQL query: LIST, TABLE, TASK, CALENDAR), validate_dql (parse only,
the query's structure or the error's position) and eval_dataview_field (a note's fields with
their types), all in `tools.py` over the engine `service.dataview`.
Touches: index tables `notes`, `links`, `dataview_facts` (read only, through
`service.dataview.pages`); vault files only to check that a page's notes still exist.
"""

from __future__ import annotations

from service.tools.dataview import tools
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = tools.TOOLS
