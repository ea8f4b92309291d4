"""An idle HTTP connection outlives the clients' own idle expiry, on a real uvicorn server.

uvicorn closes an idle connection after `timeout_keep_alive`, 5 s by default, the same as httpx's
`keepalive_expiry` (the MCP SDK's client), and well under a proxy's (cloudflared keeps idle
connections to the origin 90 s). A client reusing its connection just as the server closed it got
a reset instead of an answer (an httpx ReadError; a 502 from a tunnel). vaultgate keeps an idle
connection `http.keep_alive_seconds` (120 s): a request sent 6 s after the last answer, on the same
connection, is answered. An idle connection still makes room when the server is full
(tests/reliability/test_connection_cap_http.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.reliability.fronts import Raw, ServerThread, sample_settings

PAUSE_S = 6.0  # past uvicorn's 5 s default and httpx's 5 s expiry


@pytest.fixture(scope="module", params=["httptools", "h11"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    configured = sample_settings(tmp_path_factory.mktemp(f"keep-alive-{request.param}"), http={"parser": request.param})
    with ServerThread(configured) as running:
        yield running


def test_a_connection_idle_past_five_seconds_still_answers(server: ServerThread) -> None:
    with Raw(server.port) as raw:
        assert raw.request("GET", "/healthz", b"", {})
        first = raw.response()
        assert first.status == 200 and not first.closed
        time.sleep(PAUSE_S)
        assert raw.request("GET", "/healthz", b"", {})
        second = raw.response()
    assert second.status == 200


def test_the_keep_alive_is_a_setting_passed_to_uvicorn() -> None:
    from service.http.head_limits import uvicorn_options

    assert uvicorn_options("h11", 4096, 60.0, keep_alive_seconds=42.0)["timeout_keep_alive"] == 42.0
    assert uvicorn_options("httptools", 4096, 60.0)["timeout_keep_alive"] == 120.0
