"""CoalescingTransport: the writes of one event-loop step leave as one write of the transport;
closing sends what is gathered, aborting drops it. The served answers themselves are covered by
every HTTP test (serve.py uses the coalescing protocol when httptools is installed)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2 as httpx

from service.app import VaultgateApp
from service.http.coalesce import CoalescingHttpToolsProtocol, CoalescingTransport
from service.serve import _uvicorn_config
from tests.conftest import Harness, settings_for


class Recording(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []
        self.closed = self.aborted = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.sent.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 1)}.get(name, default)


async def _next_step() -> None:
    await asyncio.sleep(0)


async def test_writes_of_one_step_are_sent_together_and_later_ones_alone() -> None:
    inner = Recording()
    t = CoalescingTransport(inner, asyncio.get_running_loop())
    t.write(b"HTTP/1.1 200 OK\r\n\r\n")
    t.write(b"")
    t.write(memoryview(b"body"))
    assert inner.sent == [] and t.get_write_buffer_size() == len(b"HTTP/1.1 200 OK\r\n\r\nbody")
    await _next_step()
    assert inner.sent == [b"HTTP/1.1 200 OK\r\n\r\nbody"]
    t.writelines([b"event 2", b"!"])
    await _next_step()
    assert inner.sent[1:] == [b"event 2!"]
    assert t.get_extra_info("peername") == ("127.0.0.1", 1)  # everything else is the transport's


async def test_close_sends_what_is_gathered_and_abort_drops_it() -> None:
    inner = Recording()
    t = CoalescingTransport(inner, asyncio.get_running_loop())
    t.write(b"last words")
    t.close()
    assert inner.sent == [b"last words"] and inner.closed
    await _next_step()
    assert inner.sent == [b"last words"]  # the scheduled send finds nothing left
    other = Recording()
    u = CoalescingTransport(other, asyncio.get_running_loop())
    u.write(b"never")
    u.abort()
    await _next_step()
    assert other.sent == [] and other.aborted


def test_the_server_uses_the_coalescing_protocol(tmp_path: Path) -> None:
    (tmp_path / "v").mkdir()
    config = _uvicorn_config(VaultgateApp(settings_for(tmp_path / "v")))
    assert config.http is CoalescingHttpToolsProtocol


async def test_answers_on_one_kept_alive_connection_arrive_whole(e2e_server: tuple[str, Harness]) -> None:
    url, _ = e2e_server
    base = url.rsplit("/", 1)[0]
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=1)) as client:
        answers = [await client.get(base + "/healthz") for _ in range(3)]
        posted = await client.post(url, content=b"{", headers={"content-type": "application/json"})
    assert [a.status_code for a in answers] == [200, 200, 200] and all(a.json() for a in answers)
    assert posted.status_code >= 400 and posted.content  # an error answer, head and body together
