"""Tool visibility and the facade: which tools exist for callers and what tools/list advertises.

`tool_visibility` (entries match a tool's name, its domain or one of its tags):
- `disabled`, or not matching a set `allowed` list → the tool does not exist: not advertised,
  not callable (`not_found`, exactly like an unknown name), absent from find_capability;
- `hidden` → not advertised, still callable by name and findable through the facade;
- `require_read_only` → only tools that change nothing exist: a mutating tool is treated as
  `disabled` (not advertised, not findable, `not_found` when called by name on any front).
`tool_facade.mode` then chooses the advertised set: `lean` (the default: the everyday tools of
`LEAN`, each with its own schema, plus the triad that finds, describes and calls the rest),
`flat` (every advertised tool), `domain` (one meta-tool per domain, named after it) or `triad`
(find_capability, describe_capability, call_capability). Every tool stays callable by its own
name in every mode.
"""

from __future__ import annotations

from typing import Protocol

from service.settings import ToolFacadeSettings, ToolVisibilitySettings


class ToolSpec(Protocol):
    """What visibility rules read of a tool (`service.tools.registry.ToolSpec` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def domain(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...]: ...

    @property
    def mutating(self) -> bool: ...


FACADE_TAG = "facade"
TRIAD = ("find_capability", "describe_capability", "call_capability")
# The everyday tools the `lean` mode advertises with their own schemas, beside the triad
# (tools/list keeps the registry's order). One line adds a tool; every other tool stays reachable
# through the triad and by its own name.
LEAN = (
    "read_note",
    "list_notes",
    "search_text",
    "search_hybrid",
    "search_semantic",
    "context_for_query",
    "find_similar",
    "search_notes",
    "write_note",
    "create_note",
    "append_note",
    "patch_note",
    "move_note",
    "get_backlinks",
    "get_outlinks",
    "set_properties",
    "list_tags",
    "index_status",  # error hints send agents to it (a backlog, an index not ready yet)
    "search_memory",  # agent memory: recall ...
    "add_observations",  # ... and remember (the official memory server's shape); the rest via the triad
)


def _matches(spec: ToolSpec, entries: list[str]) -> bool:
    return spec.name in entries or spec.domain in entries or any(tag in entries for tag in spec.tags)


class Visibility:
    def __init__(self, cfg: ToolVisibilitySettings, facade: ToolFacadeSettings) -> None:
        self.cfg = cfg
        self.mode = facade.mode

    def exists(self, spec: ToolSpec) -> bool:
        """Callable at all (the lookup layer's hook). Facade tools always exist."""
        if FACADE_TAG in spec.tags:
            return True
        if _matches(spec, self.cfg.disabled) or (self.cfg.require_read_only and spec.mutating):
            return False
        return self.cfg.allowed is None or _matches(spec, self.cfg.allowed)

    def listed(self, spec: ToolSpec) -> bool:
        """Shown by the facade (find_capability, domain meta-tools): exists and not a facade tool."""
        return FACADE_TAG not in spec.tags and self.exists(spec)

    def advertised(self, spec: ToolSpec) -> bool:
        """Part of tools/list in the current facade mode."""
        if FACADE_TAG in spec.tags:
            if self.mode in ("triad", "lean"):
                return spec.name in TRIAD
            return self.mode == "domain" and spec.name not in TRIAD
        if self.mode == "flat" or (self.mode == "lean" and spec.name in LEAN):
            return self.listed(spec) and not _matches(spec, self.cfg.hidden)
        return False
