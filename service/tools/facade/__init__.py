"""facade domain: find_capability, describe_capability, call_capability and one meta-tool per
domain, named after it — what tools/list advertises in the `triad` and `domain` facade modes.

`tools(registry)` builds them from the registry once every other domain is in it (so the facade
comes last in `service.tools.registry.build_registry`).
Touches: the registry (read) and the dispatch chain (see `capabilities.py`).
"""

from __future__ import annotations

from service.tools.facade.capabilities import tools

__all__ = ["tools"]
