"""Tool declarations and the registry.

A tool is declared once as a frozen `ToolSpec`; everything clients are told (input/output
schema, MCP annotations) and everything the pipeline enforces (scopes, scope class,
confirmation policy, idempotency class) is derived from that record, so the two cannot drift.
The registry refuses to start on an inconsistent declaration.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import mcp_types as types
from pydantic import BaseModel

from service.errors import RegistryError
from service.tools.models import ToolInput, ToolOutput
from service.types import WRITE_SCOPES, ScopeClass

if TYPE_CHECKING:
    from service.tools.context import ToolContext

ConfirmPolicy = Literal["never", "always", "conditional"]
Handler = Callable[["ToolContext", Any], Awaitable[ToolOutput]]
# Returns a human-readable preview when this particular call needs a human's confirmation.
ConfirmWhen = Callable[["ToolContext", Any], Awaitable[str | None]]
Precheck = Callable[["ToolContext", Any], Awaitable[None]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    domain: str
    title: str
    description: str
    input_model: type[ToolInput]
    output_model: type[ToolOutput]
    handler: Handler
    scopes: tuple[str, ...] = ("read:vault",)
    scope_class: ScopeClass = "read"
    mutating: bool = False
    destructive: bool = False
    confirm: ConfirmPolicy = "never"
    confirm_when: ConfirmWhen | None = None
    precheck: Precheck | None = None
    idempotent: bool = True
    open_world: bool = False
    max_bytes: int | None = None
    tags: tuple[str, ...] = ()
    path_args: tuple[str, ...] = field(default=())
    forwards_destructive: bool = False  # a facade tool that runs tools which may destroy (each is gated itself)

    @property
    def may_destroy(self) -> bool:
        """Whether some call of this tool can delete or replace existing content.

        MCP's destructiveHint means "may perform destructive updates", not "always asks first":
        a tool declared `destructive` (always confirmed), a tool in the delete scope class, and a
        tool with a conditional confirmation policy (which exists precisely because some of its
        calls overwrite or delete, e.g. write_note's blind overwrite, delete_note's permanent
        delete) all qualify. Only `destructive` makes the pipeline confirm every call.
        """
        return self.mutating and (
            self.destructive or self.scope_class == "delete" or self.confirm != "never" or self.forwards_destructive
        )

    def annotations(self) -> types.ToolAnnotations:
        return types.ToolAnnotations(
            title=self.title,
            read_only_hint=not self.mutating,
            destructive_hint=self.may_destroy if self.mutating else None,
            idempotent_hint=self.idempotent or not self.mutating,  # reading twice is reading once
            open_world_hint=self.open_world,
        )

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.output_model.model_json_schema()

    def to_mcp(self, schemas: tuple[dict[str, Any], dict[str, Any]] | None = None) -> types.Tool:
        """The MCP tool; `schemas` (input, output) when already known (service.storage.schema_cache)."""
        input_schema, output_schema = schemas if schemas is not None else (self.input_schema(), self.output_schema())
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=input_schema,
            output_schema=output_schema,
            annotations=self.annotations(),
            meta={"vaultgate/domain": self.domain, "vaultgate/scopes": list(self.scopes)},
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
