"""bridges domain, the command palette: list_commands, execute_command.

`list_commands` lists the commands of the running Obsidian (`GET /commands/`), each marked
`safe` when `[vaults.bridge] safe_commands` lets execute_command run it. `execute_command`
(`POST /commands/{id}/`) needs the `execute:command` scope, and that scope's confirmation floor
makes a human approve every call (`service.dispatch.confirm`); the spec says so too
(`confirm="always"`), since what a call may ask is read from the spec alone where the scope
floors are not at hand (the `tools/call` fast path leaves such a call to the SDK's session,
through which a client of any protocol era can be asked). A command id not in
`safe_commands` is refused by the precheck layer, before anything is claimed or anyone is
asked (and, as the spec's `static_check`, by a dry-run vault's preview and by validate_plan), and
so is an id the running Obsidian does not have (its palette is read first: no human confirms a
call that cannot run);
an empty `safe_commands` lets no command run (a command can do anything the app can, deleting
files included, so each one is allowed by name).
Touches: nothing on disk itself; the plugin's `GET /commands/` and `POST /commands/{id}/`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from service.errors import Forbidden, ValidationFailed
from service.tools.bridges.app import client_of
from service.tools.context import ToolContext
from service.tools.models import Paging, ToolInput, ToolOutput, decode_cursor, page_of
from service.tools.spec import ToolSpec


def _safe(ctx: ToolContext) -> list[str]:
    bridge = ctx.vault.config.bridge
    return list(bridge.safe_commands) if bridge is not None else []


class ListCommandsIn(ToolInput, Paging):
    query: str | None = Field(default=None, description="Only commands whose id or name holds these words (any case).")


class Command(BaseModel):
    id: str = Field(description="The command id execute_command takes, e.g. 'editor:save-file'.")
    name: str = Field(description="The name the command palette shows.")
    safe: bool = Field(description="Whether [vaults.bridge] safe_commands lets execute_command run it.")


class ListCommandsOut(ToolOutput):
    items: list[Command] = Field(description="Commands in Obsidian's order.")
    total: int = Field(description="Commands that match, over all pages.")
    next_cursor: str | None = Field(description="Cursor of the next page.")


async def list_commands(ctx: ToolContext, args: ListCommandsIn) -> ListCommandsOut:
    found = await client_of(ctx).commands()
    safe = set(_safe(ctx))
    if args.query:
        words = args.query.lower().split()
        found = [c for c in found if all(w in f"{c['id']} {c['name']}".lower() for w in words)]
    offset = decode_cursor(args.cursor, q=args.query)
    window, cursor = page_of(found, offset, args.limit, q=args.query)
    items = [Command(id=c["id"], name=c["name"], safe=c["id"] in safe) for c in window]
    return ListCommandsOut(items=items, total=len(found), next_cursor=cursor)


class ExecuteIn(ToolInput):
    command_id: str = Field(
        min_length=1, max_length=200, description="An Obsidian command id from list_commands, e.g. 'editor:save-file'."
    )


class ExecuteOut(ToolOutput):
    command_id: str = Field(description="The command sent to Obsidian.")
    executed: bool = Field(
        description="True: Obsidian took the command (its plugin answers 204 without saying what the command did: "
        "one that does not apply where the focus is, such as an editor command with no note open, does nothing)."
    )


def _allowed(ctx: ToolContext, command_id: str) -> None:
    safe = _safe(ctx)
    if command_id not in safe:
        raise Forbidden(
            f"command {command_id!r} is not in this vault's safe_commands",
            details={"reason": "not_in_safe_commands", "command_id": command_id, "safe_commands": safe},
            hint="Only the command ids listed in [vaults.bridge] safe_commands may run (docs/bridges.md).",
        )


async def execute_static_check(ctx: ToolContext, args: ExecuteIn) -> None:
    """A bridge is configured and the command is allowed (a dry-run vault's preview and
    validate_plan, which ask no plugin)."""
    client_of(ctx)
    _allowed(ctx, args.command_id)


async def execute_precheck(ctx: ToolContext, args: ExecuteIn) -> None:
    """Allowed, and a command the running Obsidian has (its palette read first): refused before
    anyone is asked, so no human confirms a call that cannot run."""
    await execute_static_check(ctx, args)
    if args.command_id not in {c["id"] for c in await client_of(ctx).commands()}:
        raise ValidationFailed(
            f"Obsidian has no command {args.command_id!r}",
            details={"field": "command_id", "reason": "unknown_command", "command_id": args.command_id},
            hint="list_commands lists the command ids of the running Obsidian.",
        )


async def execute_command(ctx: ToolContext, args: ExecuteIn) -> ExecuteOut:
    _allowed(ctx, args.command_id)
    await client_of(ctx).execute(args.command_id)
    return ExecuteOut(command_id=args.command_id, executed=True)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="list_commands",
        domain="bridges",
        title="List Obsidian commands",
        description="The command palette of the running Obsidian (Local REST API plugin): ids and names, each "
        "marked safe when execute_command may run it; filter with query.",
        input_model=ListCommandsIn,
        output_model=ListCommandsOut,
        handler=list_commands,
        reads_index=False,
        tags=("bridge",),
    ),
    ToolSpec(
        name="execute_command",
        domain="bridges",
        title="Run an Obsidian command",
        description="Run one command of the running Obsidian by id. Needs execute:command and a human's "
        "confirmation on every call; only ids in [vaults.bridge] safe_commands may run.",
        input_model=ExecuteIn,
        output_model=ExecuteOut,
        handler=execute_command,
        scopes=("execute:command",),
        scope_class="execute",
        mutating=True,
        confirm="always",  # as the floor does: and so the fast path leaves it to the SDK, which can ask
        idempotent=False,
        open_world=True,
        precheck=execute_precheck,
        static_check=execute_static_check,  # a dry-run preview and validate_plan
        reads_index=False,
        tags=("bridge",),
    ),
)
