"""The note a plan step's `path` names, as the checker sees it before the run (`service.plans.check`).

`found_args` puts the file the call will work on in place of the address (`Launch plan` is
`Projects/Launch plan.md`, or a note an earlier step made); `made_late_name` says when that file
is only known at run time because an earlier step whose paths the run decides may make it;
`name_problems` are then the refusals of the path as written that no note found at run time can
lift (`path_invalid`, a name the vault refuses to create).
"""

from __future__ import annotations

from typing import Any, Protocol

from service.graph.address import Address, parse_address
from service.plans.effects import EffectsBuilder
from service.plans.host import Told
from service.plans.model import Step
from service.plans.notepaths import canvas_file, note_file
from service.plans.tool_effects import ADDRESSED, CREATE_OR_MODIFY, MOVES, PERIODIC, TEMPLATE_NOTE, WHOLE_NOTE

# Tools that take any file, not only a note (a canvas, an image: `base_files.note_or_file`).
FILE_TOOLS = MOVES | frozenset({"delete_note", "copy_note"})
# Tools whose `path` may name a section of the note ('Note#Goals', patch_note's target).
SECTIONED = ADDRESSED - WHOLE_NOTE
# Tools that may make a note at a path the run decides: a later bare name may be that note.
MAKERS = (
    CREATE_OR_MODIFY | MOVES | PERIODIC | frozenset({"copy_note", "bulk_create_notes", "apply_template", TEMPLATE_NOTE})
)


class Finder(Protocol):
    """What of the server the address lookups need (the checker's `Host` has it)."""

    async def locate(self, address: str) -> str | None: ...

    async def locate_file(self, name: str) -> str | None: ...

    async def resolve(self, address: str, made: list[str], gone: set[str]) -> tuple[str | None, int]: ...

    def path_problem(self, rel: str, op: str, written: str | None = None) -> Told | None: ...

    def new_name_problem(self, rel: str) -> Told | None: ...


async def found_args(tool: str, args: dict[str, Any], host: Finder, builder: EffectsBuilder) -> dict[str, Any]:
    """`args` with the note address in `path` replaced by the file the call will work on, as
    the tool finds it (`ToolContext.find_note`): a note an earlier step made or the path as
    written when a step changed a file there, else the existing note the address names now
    (`Launch plan` is `Projects/Launch plan.md`), unless a step moved or deleted it; the path as
    written when none fits (a new note). The effects, the path ACL and the preview a human
    approves then name the file that changes; the call itself runs with `args` as given. A name
    that fits a note an earlier step made fits the vault's notes too: the tools' rules decide
    among them all (`Finder.resolve`), and when several fit the call is foreseen failing
    (`ambiguous_note`)."""
    path = args.get("path")
    base = isinstance(path, str) and tool in ADDRESSED and parse_address(path).target.lower().endswith(".base")
    if (tool == "write_canvas" or base) and isinstance(path, str):  # 'Flow' is the canvas read_canvas reads
        name = canvas_file(path) if tool == "write_canvas" else parse_address(path).target.strip()  # a .base too
        rel = builder.planned(name) or await host.locate_file(name)
        return args if rel is None or not builder.exists(rel) else {**args, "path": rel}
    if tool not in ADDRESSED or not isinstance(path, str):
        return args
    if tool in MOVES and builder.folder_now(folder := path.strip().strip("/")):  # a folder moves as a folder
        note = f"{folder}.md"  # unless a note is beside it and the path does not say which: the
        # call asks (`base_files.refuse_folder_and_note`), so the run would stop there
        if not path.strip().endswith("/") and builder.exists(note) and host.path_problem(note, "read") is None:
            builder.ambiguous.append(path)
        return args
    target = parsed(path, builder).target
    rel = builder.planned(target)
    # a made note whose path ends with it (others may fit too), or the path as written an earlier
    # step deleted or moved away (the run then finds the note by its name: `Sub/X.md` once `X.md` went)
    if rel is not None and (rel != note_file(target) or not builder.exists(rel)):
        named, fits = await host.resolve(path, *builder.stepped())
        if fits > 1:
            builder.ambiguous.append(path)  # the run answers ambiguous_note
        elif named is not None:
            rel = named
    if rel is None:
        rel = await host.locate(path)
        if rel is None and tool in FILE_TOOLS:  # 'Board.canvas', '[[photo.png]]'; 'scan#1.pdf' whole, as the call
            for name in dict.fromkeys((path.strip(), target.strip())):  # takes it (`find_note`), else its target
                if _names_a_file(name) and (rel := await host.locate_file(name)) is not None:
                    break
        if rel is None or not builder.exists(rel):
            # patch_note's '#Section' is no part of the note it finds missing ('Nowhere#Goals': 'Nowhere.md')
            return {**args, "path": note_file(target)} if tool in SECTIONED and "#" in path else args
    return {**args, "path": rel}


def parsed(path: str, builder: EffectsBuilder) -> Address:
    """`path` split as the call's `find_note` splits it, over the files as the steps seen so far
    leave them (`parse_address`): `Themes/Odd|pipe#Colors` and `Plan#2` where such notes are, a
    note an earlier step made in a folder named with '#' or '|' (`Home#Contribute/New#Heading`).
    A bare name of such a note (`Odd|pipe`) is found by `Finder.locate`, as the call finds it."""

    def names_a_path(text: str) -> str | None:
        rel = note_file(text)
        if builder.exists(rel):
            return "note"
        if builder.folder_now(text.strip("/")):
            return "folder"
        folder = rel.rpartition("/")[0]
        return "new" if ("#" in folder or "|" in folder) and builder.folder_now(folder) else None

    return parse_address(path, names_a_path)


def _names_a_file(target: str) -> bool:
    """Whether a target names a file by its extension, other than a note ('Board.canvas'): when no
    note fits it, the file tools take that file (`base_files.note_or_file`)."""
    name = target.strip().rsplit("/", 1)[-1]
    return "." in name.strip(".") and not name.lower().endswith(".md")


def made_late_name(step: Step, args: dict[str, Any], builder: EffectsBuilder, late: list[tuple[str, str]]) -> bool:
    """Whether the note `args` address may be one an earlier step makes where only the run knows
    which file that step makes (its path a reference to a result): the address names no file
    after the steps seen so far, so a bare `Final` after a move of a created note to
    `Archive/Final` is that note at run time, not a new `Final.md`. Its file is then known at
    run time too: listed as unresolved, never previewed as a create that does not happen."""
    path = args.get("path")
    if step.tool not in ADDRESSED or not isinstance(path, str):
        return False
    if not any(sid != step.id and tool in MAKERS for sid, tool in late):
        return False
    return not builder.note_exists(parsed(path, builder).target)


def name_problems(tool: str, args: dict[str, Any], host: Finder) -> list[Told]:
    """The problems of the note path a step names as written (`path_invalid`, a name the vault
    refuses): what the call itself refuses, whichever note the run then finds by it."""
    rel = note_file(parse_address(str(args["path"])).target)
    problem = host.path_problem(rel, "write")
    if problem is None and tool in CREATE_OR_MODIFY | {"copy_note"}:
        problem = host.new_name_problem(rel)
    return [] if problem is None or problem[0] == "acl_denied" else [problem]  # the ACL judges the note found
