"""The registry: every tool of every domain package, checked at start-up.

`DOMAINS` is the one ordered tuple of domain packages, by name (it is the order of tools/list).
Each package `service.tools.<domain>` exposes `TOOLS: tuple[ToolSpec, ...]`, and a spec's
`domain` is its package's name — the domain clients see in the facade's `domain` mode. The
registry is filled in `PARTS` order: the domains, then the sessions tools that run other tools
by name (`sessions.plan_tools`), then the facade, whose domain meta-tools are built from all
the others. The registry refuses to start on an inconsistent declaration.

`build_registry()` imports every part at once. `build_registry(folder)` (the composition root,
with the cache folder) may defer them: when the folder's tool index (`service.storage.tool_index`,
written after a complete build of the same sources, which passed every check) says which part
declares each tool, a part is imported at the first lookup of one of its tools, and every part
at the first iteration (tools/list, the facade, the schema cache). A stdio client's first call
then waits for the one domain it calls, not for the ~150 tools' modules and models
(docs/benchmarks.md, "stdio start-up"). Without a valid index it takes the table shipped in the
package when given one (`build_registry(folder, shipped)`: the composition root passes
`tool_index.SHIPPED`, so an empty cache folder defers the parts too; a bad declaration then fails
when its part is first added, at the latest at the first tools/list); else it builds completely
and writes one. A name the index does not place where it is found loads every part before it is
called unknown.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import import_module
from pathlib import Path
from typing import Protocol, cast

from pydantic import BaseModel

from service.errors import RegistryError
from service.storage.tool_index import ToolIndex, read_shipped
from service.tools.spec import Catalog, ToolSpec
from service.types import WRITE_SCOPES


class Domain(Protocol):
    """A domain package: `service.tools.<domain>` with its tools in `TOOLS`."""

    __name__: str
    TOOLS: tuple[ToolSpec, ...]


# The domain packages, in tools/list order. The plan tools and the facade follow them (`PARTS`).
DOMAINS: tuple[str, ...] = (
    "notes",
    "graph",
    "properties",
    "search",
    "bundles",
    "obsidian",
    "bridges",
    "tasks",
    "dataview",
    "index",
    "admin",
    "sessions",
    "memory",
    "plane",
)
PLANS = "sessions.plans"  # `sessions.plan_tools(registry)`: plans and macros name other tools
FACADE = "facade"  # `facade.tools(registry)`: one meta-tool per domain of every other part
PARTS: tuple[str, ...] = (*DOMAINS, PLANS, FACADE)


def domain_package(name: str) -> Domain:
    """`service.tools.<name>`, imported now if it was not."""
    return cast(Domain, import_module(f"service.tools.{name}"))


def _check(spec: ToolSpec) -> None:
    problems: list[str] = []
    if not spec.description.strip() or not spec.title.strip():
        problems.append("missing title or description")
    if spec.destructive and spec.confirm == "never":
        problems.append("destructive tool without a confirmation policy")
    if spec.confirm == "conditional" and spec.confirm_when is None:
        problems.append("conditional confirmation without confirm_when")
    if (
        not spec.mutating
        and WRITE_SCOPES.intersection(s.split("/", 1)[0] for s in spec.scopes)
        and ("admin" not in spec.scopes)
    ):
        problems.append("read-only tool requires a write scope")
    if not spec.mutating and spec.scope_class in ("write", "delete", "bulk"):
        problems.append(f"read-only tool in scope class {spec.scope_class!r}")
    if spec.input_model.model_config.get("extra") != "forbid":
        problems.append("input model must forbid extra fields")
    for name, info in spec.input_model.model_fields.items():
        if not info.description:
            problems.append(f"input field {name!r} has no description")
    for model in (spec.input_model, spec.output_model):
        if not issubclass(model, BaseModel):
            problems.append("models must be pydantic models")
    if problems:
        raise RegistryError(f"tool {spec.name!r}: " + "; ".join(problems))


class Registry:
    """The tools by name. `Registry(specs)` holds exactly `specs`; `build_registry` fills one
    part by part (`PARTS`), at once or as its tools are first looked up."""

    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        self._parts: dict[str, tuple[ToolSpec, ...]] = {}  # parts added so far (build_registry)
        self._where: Mapping[str, str] = {}  # tool name -> part, for parts not added yet
        self._complete = True
        self._lock = threading.RLock()  # a part is imported once, whichever thread looks first
        self._filling = False
        # Whether a tool exists for callers (`Visibility.exists`): the facade's domain meta-tools
        # offer only those, so a disabled tool is not named there (set before the facade is built).
        self.exists: Callable[[ToolSpec], bool] | None = None
        for spec in specs:
            self.add(spec)

    def add(self, spec: ToolSpec) -> None:
        if spec.name in self._specs:
            raise RegistryError(f"duplicate tool name {spec.name!r}")
        _check(spec)
        self._specs[spec.name] = spec

    def get(self, name: str) -> ToolSpec | None:
        spec = self._specs.get(name)
        if spec is None and not self._complete:
            part = self._where.get(name)
            if part is not None and part != FACADE:
                self._add_part(part)
                spec = self._specs.get(name)
            if spec is None:  # the facade, or a name the index does not place: every part
                self.complete()
                spec = self._specs.get(name)
        return spec

    def __iter__(self) -> Iterator[ToolSpec]:
        self.complete()
        return iter(self._specs.values())

    def __len__(self) -> int:
        self.complete()
        return len(self._specs)

    def names(self) -> list[str]:
        self.complete()
        return list(self._specs)

    def loaded_parts(self) -> tuple[str, ...]:
        """The parts added so far, in `PARTS` order (all of them once complete)."""
        return tuple(part for part in PARTS if part in self._parts)

    def complete(self) -> None:
        """Add every part not added yet; the tools are then in `PARTS` order."""
        if self._complete:
            return
        with self._lock:  # another thread filling: wait for it; this thread (the facade): go on
            if self._complete or self._filling:
                return  # `_filling`: the facade iterates what the other parts declared
            self._filling = True
            try:
                for part in PARTS:
                    self._add_part(part)
            finally:
                self._filling = False
            ordered = {spec.name: spec for part in PARTS for spec in self._parts[part]}
            ordered.update((name, spec) for name, spec in self._specs.items() if name not in ordered)  # `add`ed
            self._specs = ordered
            self._complete = True

    def _add_part(self, part: str) -> None:
        with self._lock:
            if part in self._parts:
                return
            domain = part.partition(".")[0]
            specs = tuple(_declared(part, self))
            for spec in specs:
                if spec.domain != domain:
                    raise RegistryError(f"tool {spec.name!r}: domain {spec.domain!r} is not its package {domain!r}")
                self.add(spec)
            self._parts[part] = specs

    def where_found(self) -> dict[str, str]:
        """Tool name -> the part that declared it, for the parts added so far (the tool index)."""
        return {spec.name: part for part, specs in self._parts.items() for spec in specs}


def _declared(part: str, registry: Catalog) -> Iterable[ToolSpec]:
    """The specs `part` declares; the facade's are built from `registry` (every other part)."""
    if part == PLANS:
        return cast("Iterable[ToolSpec]", import_module("service.tools.sessions").plan_tools(registry))
    if part == FACADE:
        return cast("Iterable[ToolSpec]", import_module("service.tools.facade").tools(registry))
    return domain_package(part).TOOLS


def build_registry(
    folder: Path | None = None, shipped: Path | None = None, exists: Callable[[ToolSpec], bool] | None = None
) -> Registry:
    """Every tool; with `folder` (the cache folder), parts are added as their tools are first
    looked up when its tool index is valid, or else the table at `shipped` is readable; else all
    at once and the folder's index written. `exists`: see `Registry.exists`."""
    registry = Registry()
    registry.exists = exists
    registry._complete = False
    index = ToolIndex(folder) if folder is not None else None
    where = index.read() if index is not None else None
    if where is None and index is not None and shipped is not None:
        where = read_shipped(shipped)
    if where is not None:
        registry._where = where
        return registry
    registry.complete()
    if index is not None:
        index.write(registry.where_found())
    return registry
