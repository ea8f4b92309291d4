"""§3.4 authorize: the caller must hold every scope the tool declares.

The HTTP edge has already verified the bearer token (or auth is `none`, or the transport is
stdio: full scopes). A caller with no identity and no scopes is `unauthorized`; one missing a
scope is `forbidden` with `details.required` (the missing scopes) and `details.granted`.
A folder-narrowed grant (`write:vault/Projects/**`) satisfies the tool-level check; the path
ACL (`service.security.acl`) then confines every path the tool touches to that folder.
"""

from __future__ import annotations

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import Forbidden, Unauthorized
from service.security import scopes


class Authorize:
    name = "authorize"

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        spec = call.spec
        assert spec is not None
        principal = call.principal
        missing = [s for s in spec.scopes if not scopes.holds(principal.scopes, s)]
        if missing:
            if not principal.authenticated and not principal.scopes:
                raise Unauthorized(
                    "authentication required", details={"required": missing}, hint="Send a bearer token."
                )
            raise Forbidden(
                f"{spec.name} needs scope {' and '.join(missing)}",
                details={"required": missing, "granted": sorted(principal.scopes), "tool": spec.name},
                hint="Ask for a token with the required scope.",
            )
        return await next(call)
