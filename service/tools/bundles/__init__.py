"""context bundles domain: notes packed into a context window's worth, page by page."""

from __future__ import annotations

from service.tools.bundles import packing
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*packing.TOOLS,)
