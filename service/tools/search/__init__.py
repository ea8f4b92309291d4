"""search domain: find notes by text, regex, tags, properties or JSONLogic.

Tools: search_text, search_regex (`text.py`); search_tags, search_properties, query_jsonlogic
(`metadata.py`); search_semantic, search_hybrid, find_similar (`semantic.py`); rag_search (`rag.py`);
search_vault (`router.py`: one entry point over every mode) and search_notes (`notes_search.py`:
the search_notes contract), their semantic and hybrid modes (`vector_modes.py`) and items'
`sensitive` flags (`flags.py`); the date filters every search tool that takes them shares
(`dates.py`); the semantic tools' work on the readers (`readers.py`); hybrid ranking by
`service.retrieval.fusion` and `service.retrieval.hybrid`.
Touches: index tables `notes`, `note_text`, `fts_words`, `fts_trigram`, `note_tags`,
`note_properties` (read only, through `service.retrieval`); vault files only to check that a
page's notes still exist and to number regex lines.
"""

from __future__ import annotations

from service.tools.search import metadata, notes_search, rag, router, semantic, text
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (
    *text.TOOLS,
    *metadata.TOOLS,
    *semantic.TOOLS,
    *rag.TOOLS,
    *router.TOOLS,
    *notes_search.TOOLS,
)
