"""Which connection makes room at `http.max_connections` (`service.http.head_limits._Over`): the one
idle longest, closed silently; else the one whose request head has been arriving longest, answered
503; never one with a request in flight, so when every connection is in flight the new one is
answered 503 and closed. Driven with stand-in connections (uvicorn's shared `connections` set, a
transport that records); the real server with both parsers: tests/reliability/test_connection_cap_http.py."""

from __future__ import annotations

import logging

from service.http.head_limits import _Over


class Transport:
    def __init__(self) -> None:
        self.written, self.closing = b"", False

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closing = True


class Conn:
    """A connection as the protocol classes tell `_Over` of it: counted, then checked, then idle."""

    logger = logging.getLogger("test.connection_room")

    def __init__(self, over: _Over, connections: set[Conn]) -> None:
        self.connections, self.transport = connections, Transport()
        connections.add(self)
        self.refused = over.refused(self)
        if not self.refused:
            over.mark(self, "idle")


def test_the_connection_idle_longest_makes_room() -> None:
    over, connections = _Over(3), set[Conn]()
    a, b, c = Conn(over, connections), Conn(over, connections), Conn(over, connections)
    over.mark(a, "busy")  # a request: a is in flight, then answered, idle again (now idle latest)
    over.mark(a, "idle")
    over.mark(b, "idle")  # marked idle again: keeps its place
    d = Conn(over, connections)
    assert not d.refused and b.transport.closing and b.transport.written == b""  # silently, as a keep-alive end
    assert connections == {a, c, d} and not a.transport.closing and not c.transport.closing
    e = Conn(over, connections)
    assert c.transport.closing and not a.transport.closing and connections == {a, d, e}
    assert over.evicted == 2 and over.count == 0


def test_heads_after_idle_ones_and_never_one_in_flight() -> None:
    over, connections = _Over(3), set[Conn]()
    heading, idle, busy = Conn(over, connections), Conn(over, connections), Conn(over, connections)
    over.mark(heading, "head")
    over.mark(busy, "busy")
    first = Conn(over, connections)
    assert idle.transport.closing and not heading.transport.closing  # the idle one before a head
    over.mark(first, "busy")
    second = Conn(over, connections)
    assert heading.transport.closing and heading.transport.written.startswith(b"HTTP/1.1 503 ")
    over.mark(second, "busy")
    third = Conn(over, connections)  # all three in flight: the newcomer is refused, none is cut
    assert third.refused and third.transport.closing and b'"code":-32600' in third.transport.written.replace(b" ", b"")
    assert connections == {busy, first, second}, "a refused connection is still counted"
    assert not any(conn.transport.closing for conn in (busy, first, second))
    assert (over.count, over.evicted) == (1, 2)
    over.mark(first, "gone")  # its connection lost: never a candidate again
    over.mark(second, "idle")
    fourth = Conn(over, connections)
    assert not fourth.refused and second.transport.closing and not first.transport.closing
