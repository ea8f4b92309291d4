"""What the plane's output may show: the notes a reader may see.

A job runs over the whole index, but what it reports and writes — a finding's title and target, a
digest's lines, a topic map's links, a written summary — is read by callers the vault's path ACL
restricts. So the jobs look at the vault as a reader does: a note the vault's path ACL keeps from
a reader (`readable`, asked as the plane's own local principal) is, for them, no note at all — a
link to it is unresolved, a name or source naming it names nothing, and it is never listed, linked
or quoted. The notes the plane writes quote no text the sensitive rules flag either (`quotable`:
a secret, a sensitive tag or term: `[sensitive]`, `[search] sensitive_terms` / `sensitive_tags`).
Findings are then shown per caller by the notes they are about (`service.tools.plane.shown_to`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from service.plane.job import JobContext
from service.retrieval.sensitive import Guard
from service.security.acl import AclGuard
from service.types import Principal

READER = Principal.local("vaultgate-plane")


def readable(ctx: JobContext) -> Callable[[str], bool]:
    """Whether the vault's path ACL lets a reader read the note at this path (every note when the
    job has no configuration)."""
    settings = ctx.all_settings
    if settings is None:
        return lambda _path: True
    acl = AclGuard(settings)
    if not acl.acl_of(ctx.vault.id).restricted:  # no path rule: every indexed note (~1 s saved a 100k notes)
        return lambda _path: True
    seen: dict[str, bool] = {}

    def allowed(path: str) -> bool:
        found = seen.get(path)
        if found is None:
            found = seen[path] = acl.allows(READER, ctx.vault, path, "read")
        return found

    return allowed


def quotable(ctx: JobContext) -> Callable[[str, str, str], bool]:
    """Whether a note (path, its tags as the index keeps them, body) may be quoted in what the
    plane writes: a reader may read it and the sensitive rules flag none of it."""
    settings = ctx.all_settings
    can_read = readable(ctx)
    if settings is None:
        return lambda path, _tags, _body: can_read(path)
    guard = Guard.build(
        "flag",
        builtin=settings.sensitive.builtin_patterns,
        patterns=settings.sensitive.patterns,
        secret_keys=settings.sensitive.secret_keys,
        terms=settings.search.sensitive_terms,
        tags=settings.search.sensitive_tags,
    )
    terms = [t.lower() for t in settings.search.sensitive_terms if t]
    hidden = {t.lower().lstrip("#") for t in settings.search.sensitive_tags}

    def ok(path: str, tags: str, body: str) -> bool:
        if not can_read(path):
            return False
        if hidden and any(tag.lower() in hidden for tag in re.findall(r'"([^"]+)"', tags)):
            return False
        lowered = body.lower()
        return not guard.spans(body) and not any(term in lowered for term in terms)

    return ok
