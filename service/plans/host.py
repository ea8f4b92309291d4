"""What a plan's check reads of the server: the tool (`ToolInfo`, a `service.tools.spec.ToolSpec`)
and the server as the plan's caller sees it (`Host`, implemented by the tool layer:
`service.tools.sessions.plan_host.PlanHost`). The engine imports no tool; these protocols are all
it knows of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from service.errors import VaultgateError
from service.plans.effects import MemoryNotes
from service.plans.planned_links import Rewriter
from service.plans.refusals import StaticCheck
from service.plans.texts import PlannedText

Told = tuple[str, str, dict[str, Any] | None, str | None]  # a refusal: code, message, details, hint


class Failure(Protocol):
    """A call's error as a check reads it (`service.plans.runner.CallError` is one)."""

    @property
    def code(self) -> str: ...
    @property
    def retryable(self) -> bool: ...
    @property
    def message(self) -> str: ...
    @property
    def details(self) -> dict[str, Any] | None: ...
    @property
    def hint(self) -> str | None: ...


class ToolInfo(Protocol):
    """What the engine reads of a tool (`service.tools.spec.ToolSpec` is one)."""

    @property
    def name(self) -> str: ...
    @property
    def input_model(self) -> type[BaseModel]: ...
    @property
    def mutating(self) -> bool: ...
    @property
    def destructive(self) -> bool: ...
    @property
    def scopes(self) -> tuple[str, ...]: ...
    @property
    def scope_class(self) -> str: ...  # "execute": it acts in the running Obsidian
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def static_check(self) -> StaticCheck | None: ...  # `service.plans.refusals`


class Host(Rewriter, Protocol):
    """The server as the plan's caller sees it (implemented by the tool layer); what the rewrites
    over the plan's vault need of it (`is_file`, `move_rewrites`, `link_rewrites`) is `Rewriter`'s."""

    def tool(self, name: str) -> ToolInfo | None:
        """The tool if it exists and the caller may see it."""

    @property
    def ctx(self) -> Any: ...  # the caller's tool context, given to a tool's `static_check`

    def scope_problem(self, tool: ToolInfo) -> str | None: ...

    def invalid_arguments(self, tool: ToolInfo, errors: list[ErrorDetails]) -> VaultgateError:
        """The error a call of `tool` answers for arguments its input model refuses with `errors`
        (the dispatch chain's validate layer's: each issue in `details.issues`, and its hint)."""

    def path_problem(self, rel: str, op: str, written: str | None = None) -> Told | None:
        """(code, message, details, hint) of the call's refusal when it could not use `rel` for
        `op`: path_invalid... (naming the note's path as `written`, where a call gave it so),
        acl_denied (its rule in the details), as the call answers it."""

    def new_name_problem(self, rel: str) -> Told | None:
        """(code, message, details, hint) when the vault refuses to create a file or folder named as
        `rel`'s last segment (a link or invisible character, a device name), as the writing call would."""

    def exists(self, rel: str) -> bool: ...

    def is_folder(self, rel: str) -> bool: ...

    @property
    def root(self) -> Path:
        """The vault folder (periodic notes' settings are read from it)."""

    @property
    def trash(self) -> str:
        """The vault's trash folder (a soft delete moves the note there)."""

    def read_only(self, rel: str) -> bool:
        """Whether the file at `rel` is one the server's user may not write (chmod a-w)."""

    async def locate(self, address: str) -> str | None:
        """The existing note a note address names in the vault now, as the tools find it (a
        bare name, a partial path, an alias); None when no note or several fit."""

    async def missing(self, address: str) -> VaultgateError | None:
        """The error a call editing the note `address` names answers where none is in the vault now
        (`note_not_found`: the closest names, a file of that name no note tool reads), as it raises it."""

    async def section_problem(self, address: str) -> VaultgateError | None:
        """The error a tool working on a whole note answers for `address` naming a section
        (`Note#Goals`): its message, details and hint, as the tool raises it; None when it does not."""

    async def locate_file(self, name: str) -> str | None:
        """The existing file that is not a note (a canvas) a name names now, as the tools find it
        (the path as written, else by path tail or file name); None when none or several fit."""

    async def resolve(self, address: str, made: list[str], gone: set[str]) -> tuple[str | None, int]:
        """The note a note address names once earlier steps made `made` and removed `gone` (by
        the tools' rules after the path as written): (its path, 1), or (None, how many fit)."""

    @property
    def memory(self) -> MemoryNotes | None:
        """Where memory tools write (their steps' effects name those notes)."""

    async def template(self, tool: str, args: dict[str, Any]) -> str | None:
        """The template file `tool` (apply_template, or a periodic tool making its note) called
        with `args` renders from, as the tool finds it in the vault now; None when it names none,
        or none or several fit."""

    async def text_refusal(self, tool: str, args: dict[str, Any], rel: str, text: PlannedText) -> VaultgateError | None:
        """The error `tool` called with `args` answers for the note at `rel` whose text the
        earlier steps leave as `text` (a heading it lacks, a character its encoding lacks), as the
        call raises it; None when it edits it, or when that text is not foreseen."""

    async def text_changes(self, tool: str, args: dict[str, Any], texts: dict[str, PlannedText]) -> list[str]:
        """The notes of `texts` (as the earlier steps leave them) whose text `tool` called with
        `args` changes, by the tool's own edit function."""

    async def read(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        """Run a call that changes nothing through the dispatch chain: (result, error code)."""

    async def call(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, Failure | None]:
        """`read`, with its error whole: whether a retry may get past it too."""
