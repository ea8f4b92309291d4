"""A `tools/list` the SDK answers is built off the event loop the first time (R7 s77).

The dispatcher's list (`Dispatcher.on_list_tools`) walks the whole registry, and the registry
imports each tool domain as it is first looked up (`service.tools.registry`); a tool's MCP form
then builds or reads its schemas. The first such list (a cursor, other `tool_facade` or
`tool_visibility` settings than the shipped answers were made under: `shipped_tools_list`) did
all of that on the event loop: ~0.6-1 s of CPU during which every other request of every
session waited (in-process at load 13: the loop stalled 2.5 s). Now the plan tasks' server
middleware (`PlanTasks.middleware`, which the fast paths accept) waits for `ListedOffLoop.ready`
first: the listed tools and their MCP forms are built in a worker thread (the registry's lock
makes a domain import once, whichever thread looks first), and the loop serves meanwhile. The
SDK's handler then finds everything built. A failure there is left to the handler, which meets
it again on the loop and answers it as before.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from service.dispatch.entry import Dispatcher

log = logging.getLogger(__name__)


class ListedOffLoop:
    """The dispatcher's listed tools, built once in a worker thread (module docstring)."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.dispatcher = dispatcher
        self.built = False
        self._building: asyncio.Future[None] | None = None

    async def ready(self) -> None:
        """Until the listed tools are built (at once after the first time)."""
        if self.built:
            return
        if self._building is None:
            self._building = asyncio.ensure_future(asyncio.to_thread(self._build))
        building = self._building
        try:
            await asyncio.shield(building)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the SDK's handler meets it again and answers it
            log.debug("tools/list not built off the loop: %s", exc)
            if self._building is building:
                self._building = None
            return
        self.built = True

    def _build(self) -> None:
        for spec in self.dispatcher.listed():
            self.dispatcher.input_schema(spec.name)  # its MCP form, kept by the dispatcher
