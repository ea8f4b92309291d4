"""The app's `[limits]` for every HTTP request it serves: an ASGI middleware.

A tool call gets them from the dispatcher (`service.budget.within`); a request answered past it
(a resource read, a prompt, a completion, the session the first request starts and every task of
it) gets them here, so an app embedded beside another in one process reads a note's frontmatter,
its index cap and a regular expression's time within its own `[limits]`, not the process's.
Built with the value (`budget.outside(settings.limits)`), not the application.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from service import budget


class AppLimits:
    def __init__(self, app: ASGIApp, *, outer: budget.Budget) -> None:
        self.app = app
        self.outer = outer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with budget.within(self.outer):
            await self.app(scope, receive, send)
