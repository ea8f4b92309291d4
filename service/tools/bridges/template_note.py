"""The note execute_template makes, as Templater and Obsidian will make it: its name checked
before anything is sent, and what a human confirming the call is shown.

Templater's `create_new_note_from_template` (src/core/Templater.ts) asks Obsidian for
`vault.getAvailablePath(normalizePath(folder + "/" + filename), "md")`: a note of that name there
already is left as it is and the new one is named with a number after it (`Kickoff 1.md`,
`Kickoff 2.md`, ...); the folder is created when missing; then `vault.create`, whose path check
throws on ':' (and on Windows on `* " < > | ?` too). A name with '#', '^', '[', ']' or '|' is
created, but no link reaches it. So a new name is held to the rule of every note vaultgate
creates (`VaultPaths.check_new_name`): refused with `path_invalid` and its hint before anyone is
asked or anything is sent, and by the spec's static check in validate_plan and a dry-run preview.
"""

from __future__ import annotations

from service.errors import PathInvalid
from service.policy.confirmations import ChangePreview
from service.tools.context import ToolContext
from service.vault.paths import VaultPath

MOST_NUMBERED = 1000  # names tried after the one asked for, as getAvailablePath tries them


def check_new_note(ctx: ToolContext, target: VaultPath) -> None:
    """`path_invalid` (`details.field`: the argument) when a folder Templater makes for the note,
    or the note itself, has a name no note or folder of this vault may be created with."""
    paths = ctx.vault.paths
    field = "folder"
    try:
        for folder in ctx.vault.files.missing_folders(target):
            paths.check_new_name(folder.relative_to(paths.root).as_posix(), folder.name)
        field = "filename"
        paths.check_new_name(target.rel, target.name)
    except PathInvalid as exc:
        exc.details.setdefault("field", field)
        raise


def _taken(ctx: ToolContext, rel: str) -> bool:
    """A file at `rel` the caller may read (one it may not read is not told apart from none)."""
    try:
        on_disk = ctx.vault.paths.on_disk(rel)
    except PathInvalid:
        return False
    return on_disk.exists() and ctx.services.guard.allows(ctx.principal, ctx.vault, rel, "read")


def named_as_obsidian_names(ctx: ToolContext, target: VaultPath) -> str:
    """The path Obsidian gives the new note: `target`, or with ' 1', ' 2', ... after its name."""
    stem = target.rel.removesuffix(".md")
    for n in range(MOST_NUMBERED + 1):
        rel = f"{stem} {n}.md" if n else target.rel
        if not _taken(ctx, rel):
            return rel
    return target.rel


def template_preview(ctx: ToolContext, template: VaultPath, target: VaultPath, *, open_note: bool) -> ChangePreview:
    """What execute_template will do, for the human who confirms it: the template file its
    address resolved to, the note it will create (and what becomes of one already there)."""
    made = named_as_obsidian_names(ctx, target)
    lines = [
        f"execute_template: Templater, in the running Obsidian, runs the template {template.rel} "
        "(its commands and user scripts run, and may change other notes)",
        f"and creates the note {made}" + (", then opens it in Obsidian." if open_note else "."),
    ]
    if made != target.rel:
        lines.append(f"A note {target.rel} exists already: it is left as it is, and the new note is {made}.")
    missing = ctx.vault.files.missing_folders(target)
    if missing:
        lines.append(f"The folder {missing[0].relative_to(ctx.vault.paths.root).as_posix()} is created for it.")
    return ChangePreview(" ".join(lines[:2]) + ("\n" + "\n".join(lines[2:]) if lines[2:] else ""))
