"""facade domain: find_capability, describe_capability, call_capability (`TOOLS`), and one
meta-tool per domain (`domain_tools`, built from the registry once every other domain is in it).

Touches: the registry (read) and the dispatch chain (see `capabilities.py`).
"""

from __future__ import annotations

from service.tools.facade.capabilities import TOOLS, domain_tools

__all__ = ["TOOLS", "domain_tools"]
