"""The preview of one mutating call: what it would change, computed from its arguments alone.

A vault in `write_mode = "dry-run"` answers every mutating tool without a `dry_run` argument of
its own with this preview instead of running it (`service.dispatch.preview`). It is the plan
validator's effects machinery (`service.plans.effects.EffectsBuilder`) fed a single call, so a
call previews exactly as the same call does as a plan step.

The answer is a successful result of this shape (`CallPreview`), allowed by the tool's
`outputSchema` as a third branch next to the result and the error (`service.tools.output_schema`):

    {"dry_run": true, "write_mode": "dry-run", "tool": "<name>", "effects": {<Effects>}, "summary": "..."}

`dry_run: true` tells a client it is a preview; nothing was changed.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from service.plans.effects import EffectsBuilder, MemoryNotes
from service.plans.summary import Effects


class CallPreview(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dry_run: Literal[True] = Field(default=True, description="Always true: a preview; nothing was changed.")
    write_mode: Literal["dry-run"] = Field(default="dry-run", description="Why: the vault's write_mode.")
    tool: str = Field(description="The tool that would have run.")
    effects: Effects = Field(description="What the call would change (the plan validator's effects summary).")
    summary: str = Field(description="The effects in a few lines.")


def call_effects(
    tool: str,
    args: dict[str, Any],
    *,
    destructive: bool,
    scopes: tuple[str, ...],
    exists: Callable[[str], bool],
    root: Path | None,
    memory: MemoryNotes | None = None,
    is_folder: Callable[[str], bool] | None = None,
    trash: str | None = None,
    read_only: Callable[[str], bool] | None = None,
) -> tuple[Effects, list[tuple[str, str]], list[tuple[str, str]]]:
    """The effects of one call with these (validated) arguments, the (path, op) pairs it
    touches and the (code, path) of what the call refuses: a note it would create there already
    (`already_exists`), a read-only file it would change (`vault_unwritable`); `memory`: the memory
    folder and the capture inbox (the notes memory tools write); `trash`: the vault's trash folder
    (a soft delete's copy goes there); `read_only`: whether a file is read-only (chmod a-w)."""
    builder = EffectsBuilder(exists, root, memory, is_folder, trash=trash, read_only=read_only)
    builder.effects.estimated_steps = 1
    builder.step(tool, args, destructive=destructive, scopes=scopes, step_id="call")
    refused = [("vault_unwritable", rel) for _id, rel in builder.unwritable]
    return builder.effects, builder.paths, refused + [("already_exists", rel) for _id, rel in builder.refused]


def preview_of(tool: str, effects: Effects) -> CallPreview:
    lines = effects.preview(tool).split("\n")[1:]
    return CallPreview(
        tool=tool, effects=effects, summary="\n".join([f"dry-run mode, nothing changed: {tool}", *lines])
    )


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _inline(copy.deepcopy(defs[ref.removeprefix("#/$defs/")]), defs)
    return {k: _inline(v, defs) for k, v in node.items()}


@cache
def _schema() -> dict[str, Any]:
    raw = CallPreview.model_json_schema(by_alias=True)
    defs = raw.pop("$defs", {})
    schema: dict[str, Any] = _inline(raw, defs)
    schema["required"] = ["dry_run", "write_mode", "tool", "effects", "summary"]
    return schema


def preview_schema() -> dict[str, Any]:
    """The preview's JSON Schema, self-contained (no `$ref`), for the output schema's preview branch."""
    return copy.deepcopy(_schema())
