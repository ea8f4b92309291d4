"""The text of each note a plan's earlier steps wrote, as they leave it (`service.plans.texts`),
for a later move's link rewrites in the plan's check (`plan_rewrites.move_rewrites`): composed
as the writing tools write it (frontmatter by `note_texts.yaml_block`) from the file on disk it starts from
(none: a note written whole). create_note's text is its content under its frontmatter, write_note's its content
(appended in `append` mode), append_note's and prepend_note's the note's with theirs added as the
tools add it; a call of another tool (a patch, a property edit) leaves it as before, an estimate
(docs/plans.md). A note the steps moved away or deleted is read as none (None).
"""

from __future__ import annotations

from typing import Any

from service.errors import VaultgateError
from service.markdown import sections
from service.plans.texts import PlannedText
from service.tools.context import ToolContext
from service.tools.notes.note_texts import yaml_block


def planned_reads(ctx: ToolContext, texts: dict[str, PlannedText], gone: set[str]) -> dict[str, str | None]:
    """Path -> the text a move's rewrites read there (None: no note there), for the notes of
    `texts` and those in `gone`. Reads the disk: a worker thread."""
    out: dict[str, str | None] = dict.fromkeys(gone)
    for rel, planned in texts.items():
        out[rel] = _composed(ctx, planned)
    return out


def _composed(ctx: ToolContext, planned: PlannedText) -> str | None:
    text = ""
    if planned.origin is not None:
        try:
            text = ctx.vault.files.read(ctx.vault.paths.resolve(planned.origin)).content
        except VaultgateError:  # not there, not a note: nothing to read
            return None
    for tool, args in planned.calls:
        text = _then(text, tool, args)
    return text


def _then(text: str, tool: str, args: dict[str, Any]) -> str:
    content = args.get("content", "")
    if not isinstance(content, str):
        return text
    if tool == "create_note":
        front = args.get("frontmatter")
        return yaml_block(front) + content if isinstance(front, dict) and front else content
    if tool == "write_note":
        return _appended(text, content) if args.get("mode") == "append" else content
    if tool == "append_note":
        return _appended(text, content)
    if tool == "prepend_note":
        return sections.insert_after_frontmatter(text, content if content.endswith("\n") else content + "\n")
    return text


def _appended(old: str, content: str) -> str:
    """append_note's text (`service.tools.notes.write`): `content` on a line of its own."""
    return (old if not old or old.endswith("\n") else old + "\n") + content
