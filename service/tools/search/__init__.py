"""search domain: find notes by text, regex, tags, properties or JSONLogic.

Tools: search_text, search_regex (`text.py`); search_tags, search_properties, query_jsonlogic
(`metadata.py`); search_semantic, search_hybrid, find_similar (`semantic.py`); rag_search (`rag.py`);
search_vault and search_notes (`router.py`: one entry point over every mode,
and the search_notes contract; hybrid ranking by `service.retrieval.fusion`).
Touches: index tables `notes`, `note_text`, `fts_words`, `fts_trigram`, `note_tags`,
`note_properties` (read only, through `service.retrieval`); vault files only to check that a
page's notes still exist and to number regex lines.
"""

from __future__ import annotations

from service.tools.search import metadata, rag, router, semantic, text
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*text.TOOLS, *metadata.TOOLS, *semantic.TOOLS, *rag.TOOLS, *router.TOOLS)
