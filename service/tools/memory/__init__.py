"""memory domain: agent memory inside the vault.

Tools: create_entities, add_observations, create_relations, open_nodes (`entities.py`);
search_memory, read_memory_graph, memory_store (`graph.py`); delete_observations,
delete_relations, delete_entities (`pruning.py`); merge_observations (`merging.py`); capture,
list_captures, process_capture (`captures.py`); record_experience, list_experiences,
promote_experience (`experiences.py`); what the writing tools share (`writing.py`).
Touches: the `capture_queue` table (state database) and the inbox note; `experiential.db` in the
data folder; the memory folder's entity notes (through `service.memory`).
"""

from __future__ import annotations

from service.tools.memory import captures, entities, experiences, graph, merging, pruning
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (
    entities.TOOLS + graph.TOOLS + pruning.TOOLS + merging.TOOLS + captures.TOOLS + experiences.TOOLS
)
