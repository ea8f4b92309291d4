"""CloudEvents push: batches reach a local HTTP receiver; a slow or failing one never holds a call."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.conftest import started


@contextlib.asynccontextmanager
async def receiver(status: int = 204) -> AsyncIterator[tuple[str, list[dict[str, Any]], asyncio.Event]]:
    received: list[dict[str, Any]] = []
    arrived = asyncio.Event()

    async def events(request: Request) -> Response:
        received.extend(json.loads(await request.body()))
        received[-1]["_content_type"] = request.headers["content-type"]
        arrived.set()
        return Response(status_code=status)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()  # connections queue in the backlog until uvicorn accepts: no start-up wait needed
    server = uvicorn.Server(
        uvicorn.Config(Starlette(routes=[Route("/events", events, methods=["POST"])]), log_level="error")
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/events", received, arrived
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 60)
        sock.close()


async def test_events_are_pushed_as_cloudevents_batches(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    async with receiver() as (url, received, arrived), started(root, events={"push_url": url}) as vg:
        await vg.ok("read_note", path="A")
        await vg.err("read_note", "note_not_found", path="Nope")
        await vg.app.audit.drained()
        await asyncio.wait_for(arrived.wait(), 60)
        text = vg.app.metrics.render().decode()
    assert [e["subject"] for e in received] == ["read_note", "read_note"]
    assert all(e["specversion"] == "1.0" and e["type"] == "dev.vaultgate.tool.call" for e in received)
    assert [e["data"]["error_code"] for e in received] == [None, "note_not_found"]
    assert received[-1]["_content_type"] == "application/cloudevents-batch+json"
    assert "Nope" not in json.dumps(received) and 'sink="push"' not in text


async def test_a_receiver_answering_500_drops_the_batch_and_counts_it(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    async with receiver(status=500) as (url, _, arrived), started(root, events={"push_url": url}) as vg:
        out = await vg.ok("read_note", path="A")
        await vg.app.audit.drained()
        await asyncio.wait_for(arrived.wait(), 60)
        text = vg.app.metrics.render().decode()
    assert out["path"] == "A.md"
    assert 'vaultgate_observe_drops_total{sink="push"} 1.0' in text


async def test_the_spool_can_live_in_a_configured_folder(tmp_path: Path, make_vault: Callable[..., Path]) -> None:
    root = make_vault({"A.md": "# A\n"})
    async with started(root, events={"spool_dir": tmp_path / "spool"}) as vg:
        await vg.ok("read_note", path="A")
        await vg.app.audit.drained()
    [day] = (tmp_path / "spool" / "main").glob("*.jsonl")
    assert json.loads(day.read_text().splitlines()[0])["subject"] == "read_note"
    assert not (vg.app.settings.data_dir() / "events").exists() and not (root / ".vaultgate").exists()
