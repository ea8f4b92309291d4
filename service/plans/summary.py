"""The effects summary of a plan or a call, as validate_plan, execute_plan's dry run and a
dry-run vault's preview answer it (built by `service.plans.effects.EffectsBuilder`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, PrivateAttr

Risk = Literal["read-only", "writes", "destructive", "commands"]


class MovedFile(BaseModel):
    from_path: str = Field(alias="from", description="Old path.")
    to_path: str = Field(alias="to", description="New path.")
    links_rewritten: int | None = Field(
        default=None, description="Lines with links the move rewrites (from its dry run; the tool's own count)."
    )
    files_changed: int | None = Field(default=None, description="Notes whose links it rewrites (from its dry run).")
    rewritten_in: list[str] | None = Field(
        default=None,
        description="Every note whose links it rewrites and settings file it repoints (from its dry run; null: "
        "known only at run time, e.g. a move of a note whose path only the run knows).",
    )
    estimate: bool = Field(
        default=False,
        description="The counts and rewritten_in are an estimate: an earlier step edits notes as only the run "
        "knows (a template an earlier step makes, a capture filed, a link rewrite, a late argument).",
    )
    folder: bool = Field(default=False, description="A folder moves: `from` and `to` are folders.")
    moved_files: list[str] | None = Field(
        default=None, description="A folder move: every file it moves, at its old and its new path (from its dry run)."
    )

    model_config = {"populate_by_name": True}


class Failure(BaseModel):
    step: str = Field(description="The step (`id[index]` for one foreach item) whose call will fail.")
    tool: str = Field(description="Its tool.")
    code: str = Field(
        description="The error the call will answer: already_exists (a create onto a note there already), "
        "note_not_found (an edit of a note not there), vault_unwritable (a change of a read-only file, chmod a-w) or "
        "ambiguous_note (an address several notes fit once earlier steps made theirs), or the edit's own error on "
        "the note's text as the earlier steps leave it (validation_error: a patch of a heading, block or anchor it "
        "lacks; a task line holding no task)."
    )
    path: str = Field(description="The note it names.")
    stops: bool = Field(description="Its onError is stop: the plan stops there (a problem validate_plan reports).")


class Effects(BaseModel):
    files_created: list[str] = Field(
        default_factory=list,
        description="Files the plan creates: notes (where they end up) and the copies soft deletes leave in the trash.",
    )
    files_modified: list[str] = Field(default_factory=list, description="Notes it changes.")
    files_deleted: list[str] = Field(default_factory=list, description="Notes it deletes.")
    files_moved: list[MovedFile] = Field(default_factory=list, description="Moves, with the links they rewrite.")
    folders_created: list[str] = Field(default_factory=list, description="Folders it creates.")
    commands: list[str] = Field(default_factory=list, description="Commands or plugin actions it runs.")
    bulk_changes: list[str] = Field(default_factory=list, description="Steps changing files found at run time.")
    state_changes: list[str] = Field(
        default_factory=list, description="Server state it changes, not vault files (index, sessions, macros)."
    )
    unresolved: list[str] = Field(default_factory=list, description="Steps whose paths are known only at run time.")
    estimated_steps: int = Field(default=0, description="Tool calls after foreach expansion.")
    risk_level: Risk = Field(default="read-only", description="read-only | writes | destructive | commands.")
    # files a step makes and a later one moves or deletes: no file is there before the plan nor after it
    _passing: set[str] = PrivateAttr(default_factory=set)

    @property
    def passing(self) -> set[str]:
        return self._passing

    def changed_files(self) -> tuple[list[str], bool]:
        """Every file the plan changes that is known now (a note it makes and then moves, at its
        last path only), and whether that is all of them (no step changes files found only at run time)."""
        files = [*self.files_created, *self.files_modified, *self.files_deleted]
        complete = not self.bulk_changes and not self.unresolved and not self.commands
        for m in self.files_moved:
            files += (m.moved_files or []) if m.folder else [m.from_path, m.to_path]
            files += m.rewritten_in or []
            complete = complete and m.rewritten_in is not None and not m.estimate
        return sorted(set(files) - self._passing), complete

    def preview(self, goal: str) -> str:
        """What a human approves: the goal and the effects, in a few lines."""
        lines = [f"plan: {goal}", f"risk: {self.risk_level}; {self.estimated_steps} tool calls"]
        for label, items in (
            ("create", self.files_created),
            ("modify", self.files_modified),
            ("delete", self.files_deleted),
            ("create folders", self.folders_created),
            ("run", self.commands),
            ("bulk", self.bulk_changes),
            ("server state", self.state_changes),
            ("known at run time", self.unresolved),
        ):
            if items:
                shown = ", ".join(items[:20]) + (f" (+{len(items) - 20} more)" if len(items) > 20 else "")
                lines.append(f"{label} ({len(items)}): {shown}")
        if self.files_moved:
            moves = [f"{m.from_path} -> {m.to_path}" for m in self.files_moved[:20]]
            lines.append(f"move ({len(self.files_moved)}): " + ", ".join(moves))
            later = [f"{m.from_path}" for m in self.files_moved if m.rewritten_in is None]
            if later:
                lines.append(f"link rewrites known at run time ({len(later)} moves): " + ", ".join(later[:20]))
            guessed = [m.from_path for m in self.files_moved if m.estimate and m.rewritten_in is not None]
            if guessed:
                lines.append(
                    f"link rewrites estimated ({len(guessed)} moves; earlier steps edit notes as only the run "
                    "knows): " + ", ".join(guessed[:20])
                )
        return "\n".join(lines)


class PlanEffects(Effects):
    """A plan's effects: also the calls that will fail (a single call's preview answers such a
    call with its error instead, so its schema, in every mutating tool's, has no such list)."""

    failures: list[Failure] = Field(
        default_factory=list,
        description="Calls that will fail as the vault is now (after the plan's earlier steps); "
        "their changes are not counted above.",
    )

    def preview(self, goal: str) -> str:
        lines = [super().preview(goal)]
        for f in self.failures[:20]:
            then = "the plan stops there" if f.stops else "the plan goes on"
            lines.append(f"fails: {f.step} ({f.tool} {f.path}): {f.code}; {then}")
        return "\n".join(lines)
