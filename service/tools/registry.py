"""The registry: every tool of every domain package, checked at start-up.

`DOMAINS` is the one ordered tuple of domain packages (it is the order of tools/list). Each
package exposes `TOOLS: tuple[ToolSpec, ...]`, and a spec's `domain` is its package's name —
the domain clients see in the facade's `domain` mode. `build_registry` adds the packages in
that order; the facade comes last because its domain meta-tools are built from the others.
The registry refuses to start on an inconsistent declaration.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from pydantic import BaseModel

from service.errors import RegistryError
from service.tools import (
    admin,
    bridges,
    bundles,
    dataview,
    facade,
    graph,
    index,
    memory,
    notes,
    obsidian,
    plane,
    properties,
    search,
    sessions,
    tasks,
)
from service.tools.spec import ToolSpec
from service.types import WRITE_SCOPES


class Domain(Protocol):
    """A domain package: `service.tools.<domain>` with its tools in `TOOLS`."""

    __name__: str
    TOOLS: tuple[ToolSpec, ...]


# The domain packages, in tools/list order. The facade follows them: its meta-tools are built
# from the registry they filled (one per domain), by `facade.tools(registry)`.
DOMAINS: tuple[Domain, ...] = (
    notes,
    graph,
    properties,
    search,
    bundles,
    obsidian,
    bridges,
    tasks,
    dataview,
    index,
    admin,
    sessions,
    memory,
    plane,
)


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
    def __init__(self, specs: Iterable[ToolSpec] = ()) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs:
            self.add(spec)

    def add(self, spec: ToolSpec) -> None:
        if spec.name in self._specs:
            raise RegistryError(f"duplicate tool name {spec.name!r}")
        _check(spec)
        self._specs[spec.name] = spec

    def get(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def names(self) -> list[str]:
        return list(self._specs)


def build_registry() -> Registry:
    registry = Registry()
    for package in DOMAINS:
        _add_domain(registry, package.__name__, package.TOOLS)
    _add_domain(registry, sessions.__name__, sessions.plan_tools(registry))  # plans name other tools
    _add_domain(registry, facade.__name__, facade.tools(registry))
    return registry


def _add_domain(registry: Registry, package: str, specs: Iterable[ToolSpec]) -> None:
    domain = package.rpartition(".")[2]
    for spec in specs:
        if spec.domain != domain:
            raise RegistryError(f"tool {spec.name!r}: domain {spec.domain!r} is not its package {domain!r}")
        registry.add(spec)
