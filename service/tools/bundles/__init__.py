"""context bundles domain: context packed for an agent's window under a budget.

Tools: bundle_folder, bundle_files (`packing.py`: notes packed page by page); context_for_query
(`context.py`: the best passages for a question, with citations).
Touches: the semantic index (read, through `service.semantic`) and the files of the notes packed or quoted.
"""

from __future__ import annotations

from service.tools.bundles import context, packing
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*packing.TOOLS, *context.TOOLS)
