"""The path ACL: may this caller do this operation on this vault path, and which rule decided.

Decisions are made on the vault-relative path the resolver produced (NFC-normalized,
symlinks resolved, traversal already refused), for op `read`, `write` or `delete`, in this
order — the first step that decides wins:

 1. hard deny: `.obsidian/`, `.git/`, `.trash/` and the index folder, always;
 2. read-only vault: no write or delete (`read_only_mode`);
 3. folder-narrowed scopes: a caller holding only `write:vault/Projects/**` may write only
    there (a caller holding the plain scope, or `admin`, is not narrowed);
 4. prefix rules: among rules whose `path` is a prefix of the path (whole
    segments) and that decide this op (`read`; `write` also governs delete), the longest wins;
    at equal length deny beats allow; deny rules match in any letter case (a case-insensitive
    file system opens 'private/x.md' as 'Private/x.md'), allow rules only exactly;
 5. reading the vault root, or a folder above a `read_paths` glob, is allowed: a listing of it
    filters every note, so it reveals nothing the caller may not read;
 6. the op's glob allowlist (`read_paths`, `write_paths`, `delete_paths`), when configured
    (`F/**` also admits the folder `F` itself; a wildcard-free entry `F` means `F` and `F/**`);
 7. otherwise allow, unless `default_deny`.

A vault's own `acl` block replaces the root `[acl]` block. `AclGuard` is installed as
`services.guard`: `ToolContext.resolve()` calls `check` for every path argument and every
listing filters with `allows`, so a denied note is invisible in every result.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from wcmatch import glob as wcglob

from service.errors import AclDenied, ReadOnlyMode
from service.security import scopes
from service.settings import AclSettings, Settings
from service.vault.paths import ALWAYS_HIDDEN

if TYPE_CHECKING:
    from service.types import PathGuard, Principal
    from service.vault.casing import CaseTwin
    from service.vault.paths import VaultPath
    from service.vault.vault import Vault

_GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTMATCH
OPS = ("read", "write", "delete")
DROP_BOX_RULE = "existing note is not readable (write-only drop box)"


@dataclass(frozen=True, slots=True)
class Decision:
    allowed: bool
    rule: str  # which rule decided, for inspect_acl and error details
    code: str = "acl_denied"  # or read_only_mode


@dataclass(frozen=True, slots=True)
class _Prefix:
    prefix: str  # '' = whole vault
    read: str | None
    write: str | None


class VaultAcl:
    """The compiled rules of one vault."""

    def __init__(self, cfg: AclSettings) -> None:
        self.cfg = cfg
        self.read_only = cfg.read_only
        # Config text is NFC-normalized like every path it is compared with (a TOML file typed on
        # macOS may hold NFD), so 'Privé' in the config matches 'Privé/' on disk either way.
        self.prefixes = [
            _Prefix(_nfc(r.path.strip().strip("/")), r.read, r.write) for r in cfg.prefix_rules if r.read or r.write
        ]
        # Per field: deny prefixes by case-folded spelling (-> as configured), allow prefixes exact.
        self._deny: dict[str, dict[str, str]] = {"read": {}, "write": {}}
        self._allow: dict[str, set[str]] = {"read": set(), "write": set()}
        for rule in self.prefixes:
            for field, verdict in (("read", rule.read), ("write", rule.write)):
                if verdict == "deny":
                    self._deny[field][rule.prefix.casefold()] = rule.prefix
                elif verdict == "allow":
                    self._allow[field].add(rule.prefix)
        self.allowlists: dict[str, tuple[list[str], Any] | None] = {}
        for op, raw in (("read", cfg.read_paths), ("write", cfg.write_paths), ("delete", cfg.delete_paths)):
            globs = [glob for g in raw for glob in _expand(_nfc(g))] if raw is not None else None
            self.allowlists[op] = (globs, wcglob.compile(globs, flags=_GLOB_FLAGS)) if globs is not None else None
        self.restricted = bool(self.prefixes) or cfg.default_deny or any(self.allowlists.values())

    def decide(self, rel: str, op: str) -> Decision:
        if op not in OPS:
            raise ValueError(f"unknown op {op!r}")
        first = rel.split("/", 1)[0].lower()
        if first in ALWAYS_HIDDEN:
            return Decision(False, f"hard deny: {first}/")
        if self.read_only and op != "read":
            return Decision(False, "read_only", code="read_only_mode")
        found = self._prefix(rel, op)
        if found is not None:
            return found
        entry = self.allowlists[op]
        if op == "read" and rel == "":
            # Listing the vault root reveals nothing by itself: every listed note is filtered.
            return Decision(True, "vault root (listings filter each note)")
        if entry is not None:
            globs, matcher = entry
            if matcher.match(rel) or _folder_of_any(globs, rel):
                return Decision(True, f"{op}_paths")
            if op == "read" and _leads_to_any(globs, rel):
                # A folder on the way to readable notes may be listed (its other notes are filtered).
                return Decision(True, "read_paths: folder above an allowed glob")
            return Decision(False, f"{op}_paths: no glob matches")
        if self.cfg.default_deny:
            return Decision(False, "default_deny")
        return Decision(True, "default allow")

    def _prefix(self, rel: str, op: str) -> Decision | None:
        """Walk the path's ancestors from the longest: the first one a rule names decides.
        O(path depth) dictionary lookups, however many rules are configured."""
        field = "read" if op == "read" else "write"
        deny, allow = self._deny[field], self._allow[field]
        if not deny and not allow:
            return None
        segments = rel.split("/") if rel else []
        for depth in range(len(segments), -1, -1):
            ancestor = "/".join(segments[:depth])
            # Deny rules also match other letter cases: on a case-insensitive file system
            # (macOS, Windows) 'private/x.md' opens 'Private/x.md'. Allow rules stay exact.
            named = deny.get(ancestor.casefold())
            if named is not None:  # deny wins a tie with an allow rule of the same prefix
                return Decision(False, f"prefix_rules: {named or '/'} {field}=deny")
            if ancestor in allow:
                return Decision(True, f"prefix_rules: {ancestor or '/'} {field}=allow")
        return None


def _expand(glob: str) -> list[str]:
    """A glob without wildcards names a note or a folder: 'Projects' (or 'Projects/') also
    admits everything below it, as a folder-narrowed scope does."""
    if any(ch in glob for ch in "*?[{"):
        return [glob]
    bare = glob.strip("/")
    return [bare, f"{bare}/**"] if bare else ["**"]


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def _leads_to_any(globs: list[str], rel: str) -> bool:
    """`rel` is the literal (wildcard-free) start of one of the globs, or a folder above it."""
    below = rel + "/"
    for glob in globs:
        start = _literal_start(glob)
        if start == rel or start.startswith(below):
            return True
    return False


@lru_cache(maxsize=4096)
def _literal_start(glob: str) -> str:
    literal: list[str] = []
    for seg in glob.strip("/").split("/"):
        if any(ch in seg for ch in "*?[{!"):
            break
        literal.append(seg)
    return "/".join(literal)


def _folder_of_any(globs: list[str], rel: str) -> bool:
    """`Inbox/**` also admits the folder `Inbox` itself (listing or creating it)."""
    return any(g.endswith("/**") and rel == g[:-3] for g in globs)


class AclGuard:
    """`services.guard`: the path ACL plus folder-narrowed scopes, per vault."""

    def __init__(self, settings: Settings) -> None:
        self.rules_version = 0
        self.reload(settings)

    def reload(self, settings: Settings) -> None:
        """Rebuild the rules from `settings` (a vault added at run time gets its own block); the
        guard object stays the same, so everything holding it sees the new rules."""
        self.rules_version += 1
        self._root = VaultAcl(settings.acl)
        self._vaults = {v.id: VaultAcl(v.acl) if v.acl is not None else self._root for v in settings.vaults}

    def acl_of(self, vault_id: str) -> VaultAcl:
        return self._vaults.get(vault_id, self._root)

    def is_read_only(self, vault_id: str) -> bool:
        return self.acl_of(vault_id).read_only

    def decide(
        self, principal: Principal, vault_id: str, rel: str, op: str, *, hidden: Callable[[str], bool] | None = None
    ) -> Decision:
        """`hidden` is the vault's own hidden-folder test (it knows a configured trash folder)."""
        acl = self.acl_of(vault_id)
        rel = rel.strip("/")
        first = rel.split("/", 1)[0].lower()
        if first in ALWAYS_HIDDEN or (hidden is not None and rel and hidden(rel)):
            return Decision(False, f"hard deny: {first}/")
        if acl.read_only and op != "read":
            return Decision(False, "read_only", code="read_only_mode")
        required = scopes.OP_SCOPE[op]
        globs = scopes.narrowing(principal.scopes, required)
        if (
            globs is not None
            and rel
            and not any(scopes.covers(g, rel) for g in globs)
            and not (op == "read" and _leads_to_any(globs, rel))  # a folder on the way may be listed
        ):
            return Decision(False, f"scope {required} narrowed to {', '.join(sorted(globs))}")
        return acl.decide(rel, op)

    def check(self, principal: Principal, vault: Vault, rel: str, op: str) -> None:
        decision = self.decide(principal, vault.id, rel, op, hidden=vault.paths.is_hidden)
        if decision.allowed:
            return
        details = {"path": rel, "op": op, "rule": decision.rule, "vault": vault.id}
        if decision.code == "read_only_mode":
            raise ReadOnlyMode(f"vault {vault.id!r} is read-only", details=details)
        raise AclDenied(f"{op} access to {rel!r} is denied", details=details)

    def allows(self, principal: Principal, vault: Vault, rel: str, op: str) -> bool:
        return self.decide(principal, vault.id, rel, op, hidden=vault.paths.is_hidden).allowed


def hidden_denial(named: str, why: str, op: str = "write") -> AclDenied:
    """A refusal caused by a note the caller may not read: it names only the caller's own path
    (`named`), never the hidden note, so the refusal does not reveal which note is in the way."""
    return AclDenied(f"{op} access to {named!r} is denied: {why}", details={"path": named, "op": op, "rule": why})


def check_path(guard: PathGuard, principal: Principal, vault: Vault, vp: VaultPath, op: str) -> None:
    """Check a resolved path, and the in-vault target of a symlink on the way as well, so a
    link cannot open a way around the ACL of what it points to.

    Write-but-not-read is a drop box: new notes may be created there, but changing or deleting
    an existing file also needs read access, because those tools answer with what they saw
    (title, properties, diffs, heading errors, conflict etags) and would reveal its content.
    """
    guard.check(principal, vault, vp.rel, op)
    if vp.real_rel is not None and vp.real_rel != vp.rel and not guard.allows(principal, vault, vp.real_rel, op):
        # Refuse naming only the caller's own path: where the link points is not theirs to learn.
        raise hidden_denial(vp.rel, "a symlink on the way points where this is not allowed", op)
    if op != "read" and os.path.isfile(vp.abs):
        for rel in dict.fromkeys((vp.rel, vp.real_rel or vp.rel)):
            if not guard.allows(principal, vault, rel, "read"):
                raise drop_box_denial(vp.rel, op)


def hidden_twin(exc: CaseTwin, root: str, can_read: Callable[[str], bool]) -> AclDenied | None:
    """The refusal a case twin of a file or folder the caller may not read answers instead of
    `exc` (None: the caller may read it, or it is a name of the caller's own batch, not on disk):
    in a write-only drop box `already_exists` would spell the hidden note's true name, so a
    caller could probe names in any case and read them back. It is the exact name's refusal
    (`drop_box_denial`), message included: which spelling is taken is not told either."""
    found, named = str(exc.details.get("path", "")), str(exc.details.get("new_path", ""))
    if not found or not named or can_read(found) or not os.path.lexists(os.path.join(root, found)):
        return None
    return drop_box_denial(named, "write")


def drop_box_denial(rel: str, op: str) -> AclDenied:
    """A drop box's refusal to change what is at `rel` (the exact name, or a case twin of it or of a
    folder above it): one answer for both, naming the caller's path only."""
    return AclDenied(
        f"{op} access to {rel!r} is denied: a note or folder on that path (in any letter case) is not "
        "readable by this caller, and changing it needs read access",
        details={"path": rel, "op": op, "rule": DROP_BOX_RULE},
    )
