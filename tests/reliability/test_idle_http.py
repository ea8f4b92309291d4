"""An idle HTTP server wakes for nothing, and its answers still carry the current Date.

uvicorn's main loop woke 10 times a second to look for a stop and make its Date header again
(`service.serve._Server.main_loop`); the server now waits for its stop, and the header is made
current as each request is read (`service.http.connections.fresh_date`)."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

import pytest

from service import serve
from tests.reliability.fronts import Raw, ServerThread, sample_settings


@pytest.mark.parametrize("parser", ["httptools", "h11"])
def test_an_idle_server_ticks_once_and_answers_with_the_current_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parser: str
) -> None:
    ticks: list[int] = []
    real = serve._Server.on_tick

    async def counted(self: Any, counter: int) -> bool:
        ticks.append(counter)
        return bool(await real(self, counter))

    monkeypatch.setattr(serve._Server, "on_tick", counted)
    with ServerThread(sample_settings(tmp_path, http={"parser": parser})) as server, Raw(server.port) as raw:
        raw.get("/healthz")
        first = raw.response()
        time.sleep(2.2)  # uvicorn's loop: ~22 ticks, its Date made again twice
        raw.get("/healthz")  # the same connection (kept alive): its next request is dated now
        later = raw.response()
        assert ticks == [0]  # the start's, which makes the first Date
    assert (first.status, later.status) == (200, 200)
    stamped = parsedate_to_datetime(later.headers["date"]).timestamp()
    assert abs(stamped - time.time()) < 2.5  # (whole seconds; the server has stopped since)
    assert later.headers["date"] != first.headers["date"]
    # `ServerThread` asserts that leaving stopped the server: should_exit woke the loop at once
