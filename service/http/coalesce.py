"""One send per answer: uvicorn's writes of one event-loop step leave as one `send()`.

uvicorn writes a response's head and its body with one `transport.write` each (a streamed answer
adds a last chunk), and asyncio's socket transport sends every write at once: two or three
system calls per answer, each waking the client once. Under 32 agents (`bench_mixed`, py-spy
on the thread holding the GIL) the head's own send was 6 % of the server's interpreter time.

`CoalescingTransport` wraps a connection's transport: writes are gathered and sent together
at the end of the current event-loop step (`loop.call_soon`), so a head and a body written
without waiting in between go out as one segment; a write after a real wait (a stream's later
event) goes out on its own a step later, as before. Closing sends what is gathered first;
aborting drops it, as the transport itself would. Everything else is the transport's own.

`CoalescingHttpToolsProtocol` is uvicorn's httptools protocol with that wrapper around its
transport (`serve.py` picks it when httptools is installed).
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class CoalescingTransport:
    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._gathered: list[bytes] = []
        self._scheduled = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not data:
            return
        self._gathered.append(bytes(data))
        if not self._scheduled:
            self._scheduled = True
            self._loop.call_soon(self._send)

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def _send(self) -> None:
        self._scheduled = False
        if not self._gathered:
            return
        data = self._gathered[0] if len(self._gathered) == 1 else b"".join(self._gathered)
        self._gathered = []
        if not self._transport.is_closing():
            self._transport.write(data)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + sum(len(chunk) for chunk in self._gathered)

    def write_eof(self) -> None:
        self._send()
        self._transport.write_eof()

    def close(self) -> None:
        self._send()
        self._transport.close()

    def abort(self) -> None:
        self._gathered = []
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:  # is_closing, get_extra_info, pause_reading, set_protocol…
        return getattr(self._transport, name)


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # asyncio's or uvloop's transport (uvloop's is no `asyncio.Transport` subclass)
        super().connection_made(CoalescingTransport(cast(asyncio.Transport, transport), self.loop))  # type: ignore[arg-type]
