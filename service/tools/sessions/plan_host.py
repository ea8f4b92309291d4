"""The server as an action plan's caller sees it: the engine's `Host` and `Caller` over one call.

`PlanHost` answers the plan checker's questions (`service.plans.host.Host`) for the caller of
validate_plan/execute_plan: which tools exist for them (`services.visibility`), whether they
hold a tool's scopes, what the path ACL says about each path the plan touches, whether a note
exists. Its `read` and `call` run a tool through `services.dispatch` — the whole dispatch chain
again, with the caller's identity and the plan's vault — never the tool's handler directly.
`parse_plan` turns the plan document into the model, a schema error into `validation_error`.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from service.errors import AclDenied, NoteNotFound, PathInvalid, ValidationFailed, VaultgateError
from service.graph.address import NoteName, parse_address, resolve_address
from service.graph.linkpath import strip_md
from service.memory.store import memory_notes
from service.plans.effects import MemoryNotes
from service.plans.host import Told, ToolInfo
from service.plans.model import Plan
from service.plans.planned_links import Rewritten
from service.plans.runner import CallError
from service.plans.texts import PlannedText
from service.security import scopes as scope_rules
from service.security.acl import drop_box_denial
from service.tools.context import ToolContext
from service.tools.models import invalid_arguments
from service.tools.notes.files import plan_delete_check
from service.tools.sessions import plan_rewrites, plan_texts
from service.tools.spec import Catalog
from service.tools.tasks.periodic import PeriodIn, template_of
from service.tools.tasks.templates import find_template
from service.types import Op
from service.vault.paths import VaultPath, normalize
from service.vault.readonly import read_only


def parse_plan(document: dict[str, Any]) -> Plan:
    try:
        return Plan.model_validate(document)
    except ValidationError as exc:
        problems = [
            {"step": None, "code": "schema", "message": f"{'.'.join(str(x) for x in e['loc']) or 'plan'}: {e['msg']}"}
            for e in exc.errors()[:20]
        ]
        raise ValidationFailed(
            "the plan does not fit the plan schema",
            details={"field": "plan", "problems": problems},
            hint="See the plan JSON Schema (docs/plan.schema.json); fix the listed fields.",
        ) from None


def _told(rel: str, exc: VaultgateError) -> Told:
    """A path's refusal as the call answers it: its code, message (naming `rel` where it does not),
    details and hint."""
    said = exc.message if rel in exc.message else f"{rel}: {exc.message}"
    return exc.code, said, exc.details, exc.hint


class PlanHost:
    def __init__(self, ctx: ToolContext, registry: Catalog) -> None:
        self.ctx = ctx
        self.registry = registry
        self._resolved: dict[str, VaultPath | VaultgateError] = {}  # rel -> where it is, or why it is not a vault path
        self._names: set[str] | None = None  # the notes' file names and aliases, lower case (`locate`)
        self._disk = plan_rewrites.DiskFiles(ctx)  # walked once, when a step's rewrites need it

    def _resolve(self, rel: str) -> VaultPath | VaultgateError:
        """The vault path of `rel` (or why it is none), once per plan check: the effects
        builder asks whether a file exists, the ACL check where it is."""
        found = self._resolved.get(rel)
        if found is None:
            try:
                found = self.ctx.vault.paths.resolve(rel)
            except VaultgateError as exc:
                found = exc
            self._resolved[rel] = found
        return found

    @property
    def trash(self) -> str:
        return self.ctx.vault.files.trash_folder

    def read_only(self, rel: str) -> bool:
        try:
            return read_only(self.ctx.vault.paths.on_disk(normalize(rel))) is not None
        except PathInvalid:
            return False

    @property
    def memory(self) -> MemoryNotes:
        settings, root = self.ctx.services.settings.memory, self.ctx.vault.paths.root

        def may(rel: str, op: str) -> bool:
            return self.path_problem(rel, op) is None

        # The app's entity names (each checked against its file's mtime and size, the caller's ACL
        # applied at each lookup): a fresh cache read every note of the memory folder's start.
        return memory_notes(settings, root, self.ctx.can_read, may, names=self.ctx.services.memory_writes.names)

    def tool(self, name: str) -> ToolInfo | None:
        spec = self.registry.get(name)
        if spec is None or not self.ctx.services.visibility.exists(spec):
            return None
        if name == "delete_note":  # the run journals it: what only a journaled delete refuses is checked too
            return replace(spec, static_check=plan_delete_check)
        return spec

    def scope_problem(self, tool: ToolInfo) -> str | None:
        missing = [s for s in tool.scopes if not scope_rules.holds(self.ctx.principal.scopes, s)]
        return f"{tool.name} needs scope {' and '.join(missing)}" if missing else None

    def invalid_arguments(self, tool: ToolInfo, errors: list[ErrorDetails]) -> VaultgateError:
        return invalid_arguments(tool.name, tool.input_model, errors)

    def path_problem(self, rel: str, op: str, written: str | None = None) -> Told | None:
        vp = self._resolve(rel)
        if isinstance(vp, VaultgateError):  # the error the call would answer (path_invalid...)
            if written is not None:  # as the call takes the note's path: as written, '.md' optional
                try:
                    self.ctx.resolve_note(written, cast(Op, op))
                except PathInvalid as exc:
                    return _told(written, exc)
                except VaultgateError:
                    pass
            return _told(rel, vp)
        guard = self.ctx.services.guard
        if not guard.allows(self.ctx.principal, self.ctx.vault, vp.rel, op):
            try:  # the call's own refusal: its rule in the details
                guard.check(self.ctx.principal, self.ctx.vault, vp.rel, op)
            except AclDenied as exc:
                return _told(rel, exc)
            except VaultgateError:  # a read-only vault: the run refuses the tool before any path
                pass
            return "acl_denied", f"{rel}: the path ACL does not allow {op}", None, None
        # A drop box: changing a file there needs read access (what the call answers, once the caller
        # holds the op's scope: without it the call is `forbidden` and says nothing of the file).
        holds_op = scope_rules.holds(self.ctx.principal.scopes, scope_rules.OP_SCOPE[op])
        if op != "read" and holds_op and os.path.isfile(vp.abs):
            for seen in dict.fromkeys((vp.rel, vp.real_rel or vp.rel)):
                if not guard.allows(self.ctx.principal, self.ctx.vault, seen, "read"):
                    return _told(rel, drop_box_denial(vp.rel, op))
        return None

    def new_name_problem(self, rel: str) -> Told | None:
        try:
            self.ctx.vault.paths.check_new_name(rel, rel.rsplit("/", 1)[-1])
        except VaultgateError as exc:
            return _told(rel, exc)
        return None

    def exists(self, rel: str) -> bool:
        """Whether a file is at `rel` — as far as the caller may know: a path it may not read is
        answered as empty, so a plan's effects never tell a file (an entity of a memory folder it
        is denied) from a missing one."""
        vp = self._resolve(rel)
        if not isinstance(vp, VaultgateError):
            if not self.ctx.services.guard.allows(self.ctx.principal, self.ctx.vault, vp.rel, "read"):
                return False
            return os.path.isfile(vp.abs)
        try:  # not a path a tool may use (a hidden folder...): still, is a file there?
            return self.ctx.vault.paths.on_disk(normalize(rel)).is_file()
        except PathInvalid:
            return False

    @property
    def root(self) -> Path:
        return self.ctx.vault.paths.root

    def is_folder(self, rel: str) -> bool:
        vp = self._resolve(rel)
        return not isinstance(vp, VaultgateError) and os.path.isdir(vp.abs)

    def is_file(self, rel: str) -> bool:
        vp = self._resolve(rel)
        return not isinstance(vp, VaultgateError) and os.path.isfile(vp.abs)

    async def locate(self, address: str) -> str | None:
        """The note `address` names now, as `find_note` finds it. The note names are read once
        per plan, and only an address whose file name or alias some note carries is looked up
        (a plan creating 5,000 new notes scans no name list per call)."""
        parsed = parse_address(address)
        if not parsed.cut and not await self._named(parsed.target.strip()):  # 'Odd|pipe': find_note may find it by name
            return None
        try:
            found = await self.ctx.find_note(address, "read", missing_ok=True)
        except VaultgateError:  # several notes fit, or none may be read: the call answers that itself
            return None
        return found.vp.rel if found.vp.abs.is_file() else None

    async def _named(self, target: str) -> bool:
        """Whether some note of the vault carries the file name or the alias `target` gives (the
        names are read once per plan)."""
        if self._names is None:
            names = await self.ctx.note_names()
            self._names = {n.base_low for n in names} | {a for n in names for a in n.aliases_low}
        return strip_md(target.strip("/")).lower().rpartition("/")[2] in self._names or target.lower() in self._names

    async def resolve(self, address: str, made: list[str], gone: set[str]) -> tuple[str | None, int]:
        """The note `address` names once earlier steps made `made` and removed `gone`, by
        `find_note`'s rules after the path as written (`resolve_address`): (its path, 1), or
        (None, how many fit)."""
        target = parse_address(address).target.strip()
        # no vault note carries its file name or alias: only the made notes may fit (no scan per call)
        names = [n for n in await self.ctx.note_names() if n.path not in gone] if await self._named(target) else []
        known = {n.path for n in names}
        names += [NoteName(rel) for rel in made if rel not in known and rel.lower().endswith(".md")]
        new = set(made)

        def readable(rel: str) -> bool:
            return self.ctx.can_read(rel) and (rel in new or self.ctx.vault.paths.on_disk(rel).is_file())

        found = resolve_address(target, names, readable)
        return found.path, found.total

    async def missing(self, address: str) -> VaultgateError | None:
        try:
            await self.ctx.find_note(address, "write", section="keep")
        except NoteNotFound as exc:
            return exc
        except VaultgateError:  # several fit, none may be changed: the call answers that itself
            return None
        return None

    async def section_problem(self, address: str) -> VaultgateError | None:
        try:
            await self.ctx.find_note(address, "read", section="reject", missing_ok=True)
        except ValidationFailed as exc:
            return exc if exc.details.get("reason") == "section_not_supported" else None
        except VaultgateError:  # several notes fit, or none may be read: the call answers that itself
            return None
        return None

    async def template(self, tool: str, args: dict[str, Any]) -> str | None:
        try:
            if tool == "apply_template":
                return (await find_template(self.ctx, str(args.get("template")))).rel
            found = await template_of(self.ctx, PeriodIn.model_validate({"period": args.get("period", "daily")}).period)
        except (VaultgateError, ValidationError):  # none, several, none the caller may read: the call answers
            return None
        return None if found is None else found.rel

    async def text_refusal(self, tool: str, args: dict[str, Any], rel: str, text: PlannedText) -> VaultgateError | None:
        return await asyncio.to_thread(plan_texts.refused_by, self.ctx, tool, args, rel, text)

    async def text_changes(self, tool: str, args: dict[str, Any], texts: dict[str, PlannedText]) -> list[str]:
        return await asyncio.to_thread(plan_texts.changed_by, self.ctx, tool, args, texts)

    async def locate_file(self, name: str) -> str | None:
        try:
            return (await self.ctx.find_file(name, "read")).rel
        except VaultgateError:  # several fit, or none: the call answers that itself
            return None

    async def move_rewrites(
        self,
        moves: dict[str, str],
        folder: tuple[str, str] | None,
        made: list[str],
        gone: set[str],
        texts: dict[str, PlannedText],
    ) -> tuple[Rewritten | None, str | None]:
        return await plan_rewrites.move_rewrites(self.ctx, self._disk, moves, folder, made, gone, texts)

    async def link_rewrites(
        self, old: str, new: str, made: list[str], gone: set[str]
    ) -> tuple[Rewritten | None, str | None]:
        return await plan_rewrites.link_rewrites(self.ctx, self._disk, self.resolve, old, new, made, gone)

    async def read(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
        result, error = await self.call(tool, args)
        return result, error.code if error is not None else None

    async def call(self, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any] | None, CallError | None]:
        result = await self.ctx.services.dispatch(
            tool, {**args, "vault": self.ctx.vault.id}, principal=self.ctx.principal, transport=self.ctx.transport
        )
        if result.input_required is not None:
            return None, CallError("elicit_required", f"{tool} needs a human's answer the plan cannot give")
        if result.is_error:
            error = result.error
            if isinstance(error, VaultgateError):
                wait = error.details.get("retry_after_seconds") if error.code == "throttled" else None
                after = float(wait) if isinstance(wait, int | float) else None
                return None, CallError(error.code, error.message, error.retryable, after, error.details, error.hint)
            return None, CallError("internal_error", f"{tool} failed")
        return result.structured, None
