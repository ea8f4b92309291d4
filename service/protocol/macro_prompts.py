"""Saved macros as MCP prompts: `macro:<name>` for each macro of the caller's vault.

A macro prompt's arguments are the macro's parameters (prompt arguments are text: a value that
reads as JSON — a number, true/false, a list — is passed as that JSON, anything else as text).
Getting the prompt returns the request to call `run_macro` with those values; the run itself
goes through the tool and its checks like any call. Macros are listed only to a caller with the
read scope and the vault binding (`VaultAccess.caller`); others see the built-in prompts alone.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from service.plans.macros import Macros
from service.protocol.access import VaultAccess

PREFIX = "macro:"


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


class MacroPrompts:
    def __init__(self, access: VaultAccess, macros: Macros) -> None:
        self.access = access
        self.macros = macros

    async def listed(self, ctx: ServerRequestContext[Any, Any]) -> list[types.Prompt]:
        """The caller's macros as prompts; none for a caller who may not read the vault."""
        try:
            _principal, vault = self.access.caller(ctx, "prompts")
        except MCPError:
            return []
        return [
            types.Prompt(
                name=f"{PREFIX}{m.name}",
                title=f"Macro: {m.name}",
                description=m.description or m.plan.goal,
                arguments=[
                    types.PromptArgument(
                        name=p.name, description=f"{p.type}: {p.description}".strip(), required=p.default is None
                    )
                    for p in m.plan.params
                ],
            )
            for m in await self.macros.all(vault.id)
        ]

    async def get(
        self, ctx: ServerRequestContext[Any, Any], name: str, args: dict[str, str]
    ) -> types.GetPromptResult | None:
        """The prompt of macro `name` (without the prefix); None when there is no such macro."""
        _principal, vault = self.access.caller(ctx, "prompts")
        macro = await self.macros.get(vault.id, name)
        if macro is None:
            return None
        params = {k: _value(v) for k, v in args.items()}
        call = json.dumps({"name": macro.name, "params": params, "vault": vault.id}, ensure_ascii=False)
        text = (
            f"Run the saved macro `{macro.name}` ({macro.plan.goal}): call the tool run_macro with {call}. "
            "Set dry_run to true first if you want to see what it would change."
        )
        return types.GetPromptResult(
            description=f"Run macro {macro.name}",
            messages=[types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))],
        )
