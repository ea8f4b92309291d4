"""Which connection makes room at `http.max_connections` (`service.http.head_limits._Over`): the one
idle longest, closed silently; else the one whose request head has been arriving longest, answered
503; never one with a request in flight, so when every connection is in flight the new one is
answered 503 and closed. Driven with stand-in connections (uvicorn's shared `connections` set, a
transport that records); the real server with both parsers: tests/reliability/test_connection_cap_http.py.
And when an answer the client stopped reading closes its connection (`_Unread`): not while it takes
some of it, however little."""

from __future__ import annotations

import asyncio
import logging

from service.http.head_limits import _Over, _Unread


class Transport:
    def __init__(self) -> None:
        self.written, self.closing, self.held = b"", False, 0

    def get_write_buffer_size(self) -> int:
        return self.held

    def get_extra_info(self, name: str) -> None:
        return None

    def is_closing(self) -> bool:
        return self.closing

    def abort(self) -> None:
        self.closing = True

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


class Writing:
    """A connection whose answer waits on its client, as `_Unread` sees it."""

    logger = logging.getLogger("test.connection_room")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop, self.transport = loop, Transport()


def test_an_answer_is_cut_only_when_no_byte_of_it_was_taken_since_the_last_check() -> None:
    loop = asyncio.new_event_loop()
    try:
        conn = Writing(loop)
        unread = _Unread(conn, 30)
        conn.transport.held = 1_000_000
        unread.paused()
        for taken in (1, 4096, 1):  # a slow reader: some bytes taken before each check
            conn.transport.held -= taken
            unread._check()
            assert not conn.transport.closing
        unread._check()  # none since the last check: gone
        assert conn.transport.closing
        unread.resumed()
        again = Writing(loop)
        unread = _Unread(again, 30)
        again.transport.held = 5
        unread.paused()
        assert unread._deadline.armed
        unread.resumed()  # drained: the check of a wait that ended does not come
        assert not unread._deadline.armed
    finally:
        loop.close()
