"""Handshake-era resource subscriptions (`resources/subscribe`): which connection hears of which note.

A subscription belongs to the client's connection (an HTTP session, the stdio pipe): its
`notifications/resources/updated` go out on the connection's standalone channel, which outlives
the request that asked. So one record is kept per connection: a handle to that channel (the
session proxy of the connection's first subscribing request: any of them sends there) and the
URIs it asked for. A subscription costs its URI, not its request's whole context (each one kept
its request's session proxy, ~10 KB: 20,000 subscriptions to notes that need not exist grew the
server by 200 MB, with nothing to stop a client going on).

Bounded and released:
- a connection holds at most `per_connection` subscriptions, all connections together `total`;
  one more is refused (`-32602`, naming the limit) until some are dropped; subscribing again to a
  URI it holds is free;
- the record goes when the connection closes (a DELETE, the idle timeout, the end of stdio: the
  SDK unwinds the connection's exit stack). Before, every session that had subscribed stayed in
  memory, with its connection, for the server's life.
A notification that cannot be sent within `SEND_S` seconds drops that one subscription (the
connection is gone or not reading): a write never waits long on a subscriber.

Protocol 2026-07-28 streams (`subscriptions/listen`, served by the SDK's `ListenHandler`, at most
1,024 at once) are bounded by `BoundedListen`: a stream asks for at most `MAX_PER_CONNECTION`
URIs, and all open streams hold at most `MAX_TOTAL` together; more is refused (`-32602`,
naming the limit) before the stream opens. Before, a stream held every URI its request listed,
twice (the filter and its echo): five listens of 100,000 URIs (3 MB each) grew the server by
150 MB, and 1,024 of them could hold ~30 GB.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

MAX_PER_CONNECTION = 1000  # docs/security.md (At the HTTP edge)
MAX_TOTAL = 100_000  # subscriptions all connections hold together; URIs all listen streams hold together
SEND_S = 2.0


class _Listener:
    """One connection's subscriptions: how to reach it, and the URIs it asked for."""

    __slots__ = ("session", "uris")

    def __init__(self, session: Any) -> None:
        self.session = session
        self.uris: set[str] = set()


class Subscriptions:
    def __init__(self, per_connection: int = MAX_PER_CONNECTION, total: int = MAX_TOTAL) -> None:
        self.per_connection = per_connection
        self.total = total
        self._held = 0
        self._listeners: dict[int, _Listener] = {}  # connection identity -> its record (held: the id stays its own)
        self._by_uri: dict[str, set[int]] = {}

    def __len__(self) -> int:
        """The subscriptions held, all connections together."""
        return self._held

    def add(self, ctx: ServerRequestContext[Any, Any], uri: str) -> None:
        key, connection = _connection(ctx)
        listener = self._listeners.get(key)
        if listener is None:
            listener = self._listeners[key] = _Listener(ctx.session)
            stack = getattr(connection, "exit_stack", None)
            if stack is not None:  # the SDK unwinds it when the connection closes
                stack.callback(self.drop, key)
        if uri in listener.uris:
            return
        if len(listener.uris) >= self.per_connection:
            raise MCPError(
                types.INVALID_PARAMS,
                f"subscription limit reached: a connection holds at most {self.per_connection} resource "
                "subscriptions (unsubscribe from some first)",
                {"limit": self.per_connection},
            )
        if self._held >= self.total:
            raise MCPError(
                types.INVALID_PARAMS,
                f"subscription limit reached: the server holds at most {self.total} resource subscriptions",
                {"limit": self.total},
            )
        self._held += 1
        listener.uris.add(uri)
        self._by_uri.setdefault(uri, set()).add(key)

    def remove(self, ctx: ServerRequestContext[Any, Any], uri: str) -> None:
        self._discard(_connection(ctx)[0], uri)

    def drop(self, key: int) -> None:
        """Forget every subscription of the connection `key` (it closed)."""
        listener = self._listeners.pop(key, None)
        for uri in listener.uris if listener is not None else ():
            self._unlist(key, uri)

    async def notify(self, uri: str) -> None:
        """Tell every connection subscribed to `uri` that it changed."""
        for key in list(self._by_uri.get(uri, ())):
            listener = self._listeners.get(key)
            if listener is None:
                continue
            try:
                await asyncio.wait_for(listener.session.send_resource_updated(uri), SEND_S)
            except Exception:  # noqa: BLE001 - a gone subscriber must not fail a write
                self._discard(key, uri)

    def _discard(self, key: int, uri: str) -> None:
        listener = self._listeners.get(key)
        if listener is None or uri not in listener.uris:
            return
        listener.uris.discard(uri)  # the record stays until the connection closes (one exit callback each)
        self._unlist(key, uri)

    def _unlist(self, key: int, uri: str) -> None:
        self._held -= 1
        keys = self._by_uri.get(uri)
        if keys is not None:
            keys.discard(key)
            if not keys:
                del self._by_uri[uri]


def _connection(ctx: ServerRequestContext[Any, Any]) -> tuple[int, Any]:
    """The identity of the request's connection, and the connection (the per-request session
    proxy outside the SDK's runner)."""
    connection = getattr(ctx.session, "_connection", ctx.session)
    return id(connection), connection


class BoundedListen:
    """`subscriptions/listen` through `handler` (the SDK's `ListenHandler`), the URIs its streams
    hold bounded (see the module docstring). The handler runs for its stream's life: what a
    stream holds is counted until it ends."""

    def __init__(self, handler: Any, per_stream: int = MAX_PER_CONNECTION, total: int = MAX_TOTAL) -> None:
        self.handler = handler
        self.per_stream = per_stream
        self.total = total
        self.held = 0  # the URIs the open streams asked for

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], params: types.SubscriptionsListenRequestParams
    ) -> Any:
        asked = len(params.notifications.resource_subscriptions or ())
        if asked > self.per_stream:
            raise MCPError(
                types.INVALID_PARAMS,
                f"subscription limit reached: a stream listens to at most {self.per_stream} resource URIs",
                {"limit": self.per_stream},
            )
        if self.held + asked > self.total:
            raise MCPError(
                types.INVALID_PARAMS,
                f"subscription limit reached: the open streams listen to {self.total} resource URIs at most "
                "(end some, or listen to fewer)",
                {"limit": self.total},
            )
        self.held += asked
        try:
            return await self.handler(ctx, params)
        finally:
            self.held -= asked
