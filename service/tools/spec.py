"""The tool declaration record: `ToolSpec` and the types of its fields.

A tool is declared once as a frozen `ToolSpec`; everything clients are told (input/output
schema, MCP annotations) and everything the pipeline enforces (scopes, scope class,
confirmation policy, idempotency class) is derived from that record, so the two cannot drift.
Each domain package lists its specs in `TOOLS`; `service.tools.registry` checks and collects them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

import mcp_types as types

from service.plans.preview import preview_schema
from service.tools.models import PIPELINE_ARGS, ToolInput, ToolOutput
from service.tools.output_schema import with_error_branch
from service.tools.schema import compact_input, compact_output
from service.types import ScopeClass

if TYPE_CHECKING:
    from service.policy.confirmations import ChangePreview
    from service.tools.context import ToolContext

ConfirmPolicy = Literal["never", "always", "conditional"]
Handler = Callable[["ToolContext", Any], Awaitable[ToolOutput]]
# Returns a human-readable preview when this particular call needs a human's confirmation.
ConfirmWhen = Callable[["ToolContext", Any], Awaitable["str | ChangePreview | None"]]
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
    # The refusals of a call decided by the configuration, the path ACL and its arguments alone,
    # not by what the vault holds now (a bridge configured, a command id allowed, a folder the
    # caller may write): run by a dry-run vault's preview (`service.dispatch.preview`) and by
    # validate_plan (`service.plans.check`) as well, where the handler and `precheck` do not run,
    # so neither promises a call the tool refuses. Usually the tool's precheck itself.
    static_check: Precheck | None = None
    # What a dry-run vault's preview adds to its summary for a call whose effects its arguments
    # do not tell (a plugin's action): the words of its confirmation, from a function that asks no plugin.
    dry_run_preview: ConfirmWhen | None = None
    idempotent: bool = True
    open_world: bool = False
    max_bytes: int | None = None
    tags: tuple[str, ...] = ()
    path_args: tuple[str, ...] = field(default=())
    forwards_destructive: bool = False  # a facade tool that runs tools which may destroy (each is gated itself)
    # False: the tool reads vault files, not the index, so its calls do not wait for the caller's
    # queued index updates (`service.dispatch.own_writes`); resolving a note name waits itself.
    reads_index: bool = True
    task_support: bool = False  # may run as an MCP task (`service.protocol.tasks`): execution.taskSupport "optional"

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
        """What clients are shown (`service.tools.schema`): a read-only tool's schema leaves out the
        pipeline arguments that only matter to changes (still accepted, here or in `_meta`)."""
        omit = () if self.mutating else PIPELINE_ARGS
        return compact_input(self.input_model.model_json_schema(), omit=omit)

    def output_schema(self) -> dict[str, Any]:
        """The result model's schema or the structured error (`service.tools.output_schema`),
        compacted like the input schema (`service.tools.schema`)."""
        preview = compact_output(preview_schema()) if self.previewed else None
        return with_error_branch(compact_output(self.output_model.model_json_schema()), preview)

    @property
    def previewed(self) -> bool:
        """Whether a vault in dry-run mode answers this tool with a generic preview
        (`service.plans.preview`): a mutating tool without a `dry_run` argument of its own."""
        return self.mutating and "facade" not in self.tags and "dry_run" not in self.input_model.model_fields

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
            execution=types.ToolExecution(task_support="optional") if self.task_support else None,
            meta={"vaultgate/domain": self.domain, "vaultgate/scopes": list(self.scopes)},
        )


class Catalog(Protocol):
    """Read access to the tools (`service.tools.registry.Registry` is one), for code that must
    not import the registry, which imports every domain package: the facade, which is one."""

    def get(self, name: str) -> ToolSpec | None: ...

    def __iter__(self) -> Iterator[ToolSpec]: ...
