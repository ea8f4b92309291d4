"""The request ids in flight on the stdio channel: a request whose id one of them carries is refused.

A client's request ids must be unique among its requests in flight ("The request ID MUST NOT
have been previously used by the requestor within the same session", the MCP base protocol).
The SDK's dispatcher let a second request overwrite the first one's entry and answered both, so
the client matched the first answer to the second request (and the fast path answered both too).
The stdio front (`service.protocol.stdio_front`) refuses such a request as the HTTP transport
does (`service.http.transport`): `-32600` naming the id (`framing.reused_id`), and the first
request goes on untouched. Ids are compared as the SDK correlates them: `7` and `"7"` are one.

An id is taken when the front hands its request on (to wait for the SDK to attach, to the fast
path, to the SDK's session) and free again once its answer is handed to stdout, just before it is
written (the client can send the id again only after reading that answer), or once nothing more
is owed for it (the client cancelled it on the SDK's path; the stop answered it). A request the
front answers while it reads the line (a stored answer, a first read) never holds its id.
Standard library only: the front takes ids before anything else is imported.
"""

from __future__ import annotations

import contextlib
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def request_key(rid: Any) -> Any:
    """The key a request id is tracked under (`mcp.shared.dispatcher.coerce_request_id`):
    a string holding an integer is that integer."""
    if isinstance(rid, str):
        with contextlib.suppress(ValueError):
            return int(rid)
    return rid


class IdsInFlight:
    """The ids of the client's requests handed on and not answered yet (any thread)."""

    def __init__(self) -> None:
        self._keys: set[Any] = set()
        self._lock = threading.Lock()

    def __contains__(self, rid: object) -> bool:
        return request_key(rid) in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def take(self, rid: Any) -> None:
        with self._lock:
            self._keys.add(request_key(rid))

    def free(self, rid: Any) -> None:
        with self._lock:
            self._keys.discard(request_key(rid))
