"""Scopes: parsing grants from token claims and deciding whether they cover an operation.

A grant is a scope name optionally narrowed to a folder glob: `write:vault` (everywhere) or
`write:vault/Projects/**` (only below Projects/). Scope names: read:vault, write:vault,
delete:vault, execute:command, execute:plugin, admin. `admin` implies every other scope.

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
