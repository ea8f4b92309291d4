"""admin domain, access: inspect_acl — what the path ACL decides for (vault, path, op, scopes).

Touches: nothing (pure decision). The path is normalized exactly as a real call's would be
(NFC, symlinks resolved, traversal refused), so the answer is the decision a real call gets; a
note may be named as every note tool names it (`People/Bob`, `Bob`, `[[Bob]]`), and the decision
is then about the note file it names, whether or not the caller may read it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from pydantic import Field

from service.errors import AmbiguousNote, PathInvalid
from service.graph.address import or_by_name, parse_address, resolve_address
from service.security import scopes as scope_api
from service.security.acl import DROP_BOX_RULE
from service.tools.context import ToolContext, link_target
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec
from service.types import Principal
from service.vault.paths import VaultPath, normalize, with_md


class InspectAclIn(ToolInput):
    path: str = Field(
        description="Vault path to ask about, e.g. 'Private/Diary.md' or a folder; a note also as the note tools "
        "name it ('Private/Diary', 'Diary', '[[Diary]]')."
    )
    op: Literal["read", "write", "delete"] = Field(default="read", description="The operation.")
    scopes: list[str] | None = Field(
        default=None,
        max_length=50,
        description="Evaluate for a caller holding these scopes (e.g. ['write:vault/Inbox/**']); default: yours.",
    )


class InspectAclOut(ToolOutput):
    vault: str = Field(description="Vault id.")
    path: str = Field(description="The normalized vault path the decision is about.")
    op: str = Field(description="The operation.")
    allowed: bool = Field(description="The decision.")
    rule: str = Field(description="The rule that decided (hard deny, read_only, scope, prefix_rules, *_paths, ...).")
    code: str | None = Field(default=None, description="The error a denied call gets (acl_denied, read_only_mode).")
    read_only: bool = Field(description="Whether the vault is in read-only mode.")
    scopes: list[str] = Field(description="The scopes evaluated.")


async def _subject(ctx: ToolContext, path: str, op: str) -> VaultPath:
    """What the question is about: the file or folder at the path as written, else the note the
    path names as a note tool would find it (`.md` optional, a bare name, a wikilink, an alias),
    among every note — an admin asks about notes the ACL hides — else the path as written."""
    text = link_target(path)
    literal = ctx.vault.paths.resolve(text, allow_root=True, allow_hidden=True, op=op)
    if literal.abs.exists():
        return literal
    names = await ctx.note_names()

    def note(rel: str) -> bool:
        return ctx.vault.paths.on_disk(rel).is_file()

    def names_a_path(text: str) -> str | None:  # 'Themes/Odd|pipe', 'Plan#2': as a note tool reads them
        try:
            return "note" if note(with_md(normalize(text))) else None
        except PathInvalid:
            return None

    target = parse_address(text, or_by_name(names_a_path, names, note)).target
    found = resolve_address(target, names, note)
    if found.candidates:
        raise AmbiguousNote(
            f"{target!r} fits {found.total} notes",
            details={"address": path, "candidates": list(found.candidates), "total": found.total},
        )
    if found.path is None:
        return literal
    return ctx.vault.paths.resolve(found.path, allow_root=True, allow_hidden=True, op=op)


async def inspect_acl(ctx: ToolContext, args: InspectAclIn) -> InspectAclOut:
    vp = await _subject(ctx, args.path, args.op)
    principal = ctx.principal
    if args.scopes is not None:
        principal = Principal(
            subject=principal.subject,
            scopes=scope_api.parse_scopes(args.scopes),
            vault=principal.vault,
            authenticated=True,
        )
    guard = ctx.services.guard
    decide = getattr(guard, "decide", None)
    read_only = bool(getattr(guard, "is_read_only", lambda _v: False)(ctx.vault.id))
    if decide is None:  # no ACL engine installed: everything visible is allowed
        allowed, rule, code = True, "no ACL configured", None
    else:
        decision = decide(principal, ctx.vault.id, vp.rel, args.op, hidden=ctx.vault.paths.is_hidden)
        if decision.allowed and vp.real_rel is not None and vp.real_rel != vp.rel:
            # A real call also checks where a symlink on the way points (acl.check_path).
            target = decide(principal, ctx.vault.id, vp.real_rel, args.op, hidden=ctx.vault.paths.is_hidden)
            if not target.allowed:
                decision = replace(target, rule=f"symlink target {vp.real_rel}: {target.rule}")
        if decision.allowed and args.op != "read" and vp.abs.is_file():
            for rel in dict.fromkeys((vp.rel, vp.real_rel or vp.rel)):
                if not decide(principal, ctx.vault.id, rel, "read", hidden=ctx.vault.paths.is_hidden).allowed:
                    decision = replace(decision, allowed=False, rule=DROP_BOX_RULE, code="acl_denied")
        allowed, rule, code = decision.allowed, decision.rule, None if decision.allowed else decision.code
    return InspectAclOut(
        vault=ctx.vault.id,
        path=vp.rel,
        op=args.op,
        allowed=allowed,
        rule=rule,
        code=code,
        read_only=read_only,
        scopes=sorted(principal.scopes),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="inspect_acl",
        domain="admin",
        title="Inspect the ACL",
        description="Explain the path ACL: whether a read/write/delete of a path is allowed in a vault (for you, or "
        "for a given set of scopes) and which rule decided.",
        input_model=InspectAclIn,
        output_model=InspectAclOut,
        handler=inspect_acl,
        scopes=("admin",),
        scope_class="admin",
        tags=("admin", "security"),
    ),
)
