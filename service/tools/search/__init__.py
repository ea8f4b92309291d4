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

ORDER: a call with several things wrong answers the one its caller can fix first — its arguments
(`validation_error`), then what they name in the vault (its note or file, its folders:
`note_not_found`, `not_a_note`, `path_invalid`, `acl_denied`), and only then whether this server
can do it at all (`mode_unavailable`: embeddings or OCR off; the caller then turns to another tool
with the same arguments, which would meet the folder's error next). search_semantic, search_hybrid,
find_similar, rag_search, search_vault's and search_notes' semantic modes, and ocr_attachment /
ocr_bulk (`service.tools.obsidian.ocr`) follow it.
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
