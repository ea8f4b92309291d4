"""Scopes: parsing grants from token claims and deciding whether they cover an operation.

A grant is a scope name optionally narrowed to a folder glob: `write:vault` (everywhere) or
`write:vault/Projects/**` (only below Projects/). Scope names: read:vault, write:vault,
delete:vault, execute:command, execute:plugin, admin. `admin` implies every other scope.
`admin` cannot be narrowed: its powers (server configuration, reindexing, approving any pending
call through POST /admin/confirm, inspecting the ACL of any path) are vault-wide, so
`admin/Projects/**` is not a grant of ours — it never matches, and `narrowed_admin` names it so
that the JWT check and `vaultgate token mint` refuse such a token with a clear message.

API used by the dispatch `authorize` layer (tool-level: does the caller hold the tool's scopes
at all?) and by the path ACL (path-level: does a narrowed grant cover this path?):
    parse_scopes(claim) -> frozenset[str]            the canonical grant strings
    allows(grants, required, path=None) -> bool
    narrowing(grants, required) -> list[str] | None  globs the grant is narrowed to (None = none)
Unknown scope names are kept (and never match a required scope) so a token for another
service cannot be mistaken for one of ours.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from wcmatch import glob as wcglob

from service.types import SCOPES as SCOPES  # the one list of scope names

_GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTMATCH
UNNARROWABLE = frozenset({"admin"})  # vault-wide powers: a folder cannot bound them
OP_SCOPE = {"read": "read:vault", "write": "write:vault", "delete": "delete:vault"}


def parse_scopes(claim: Any) -> frozenset[str]:
    """Grants from a `scope` (space-separated string) or `scopes` (list) claim."""
    if claim is None:
        return frozenset()
    items: Iterable[Any] = claim.split() if isinstance(claim, str) else claim if isinstance(claim, list) else ()
    out: set[str] = set()
    for item in items:
        if isinstance(item, str) and item.strip():
            out.add(canonical(item.strip()))
    return frozenset(out)


def narrowed_admin(grants: Iterable[str]) -> list[str]:
    """The grants that narrow an un-narrowable scope (`admin/Projects/**`): refused, not ignored."""
    return sorted(g for g in grants if any(g.startswith(name + "/") for name in UNNARROWABLE))


def refusal(grants: Iterable[str]) -> str | None:
    """Why a token holding `grants` is refused (None when it is not)."""
    bad = narrowed_admin(grants)
    if not bad:
        return None
    return (
        f"scope {bad[0]!r} is not accepted: admin cannot be narrowed to a folder (its powers are "
        "vault-wide); use admin, or folder-narrowed read:vault / write:vault / delete:vault scopes"
    )


def mint_refusal(grants: frozenset[str]) -> str | None:
    """Why `vaultgate token mint` will not sign these grants (None: it will)."""
    if (why := refusal(grants)) is not None:
        return why
    unknown = sorted(g for g in grants if split(g)[0] not in SCOPES)
    if not grants or unknown:
        return f"unknown or missing scopes {unknown}; known: {' '.join(SCOPES)}"
    return None


def canonical(grant: str) -> str:
    """`write:vault/Projects/` → `write:vault/Projects/**` (a bare folder means everything below)."""
    name, glob = split(grant)
    if glob is None:
        return name
    if not any(ch in glob for ch in "*?[{"):
        glob = glob.rstrip("/") + "/**"
    return f"{name}/{glob}"


def split(grant: str) -> tuple[str, str | None]:
    for name in SCOPES:
        if grant == name:
            return name, None
        if name in UNNARROWABLE:
            continue
        if grant.startswith(name + "/") and len(grant) > len(name) + 1:
            return name, grant[len(name) + 1 :].lstrip("/")
    return grant, None


@lru_cache(maxsize=1024)
def _matcher(glob: str) -> Any:
    return wcglob.compile([glob], flags=_GLOB_FLAGS)


def narrowing(grants: frozenset[str], required: str) -> list[str] | None:
    """Folder globs `required` is narrowed to, or None when held without narrowing (or not at all)."""
    if "admin" in grants or required in grants:
        return None
    globs = [glob for name, glob in map(split, grants) if name == required and glob is not None]
    return globs or None


def holds(grants: frozenset[str], required: str) -> bool:
    """Whether the scope is granted at all (narrowed or not)."""
    if "admin" in grants or required in grants:
        return True
    return any(split(g)[0] == required for g in grants)


def allows(grants: frozenset[str], required: str, path: str | None = None) -> bool:
    """Whether `grants` cover `required`; with `path`, a narrowed grant must match it."""
    if not holds(grants, required):
        return False
    globs = narrowing(grants, required)
    if globs is None or path is None:
        return True
    return any(covers(glob, path) for glob in globs)


def covers(glob: str, path: str) -> bool:
    """A grant glob covers a path, and a folder glob `F/**` covers the folder `F` itself."""
    matcher = _matcher(glob)
    if matcher.match(path):
        return True
    return glob.endswith("/**") and path == glob[:-3]
