"""A 2026-07-28 client that closes a response stream already streaming is gone at once: its call
is cancelled, its `subscriptions/listen` stream ends and frees the URIs it held.

Closing the response stream is how such a client cancels. Since the HTTP front answered a
client's half-close (2df1a640), every FIN with an answer owed kept the connection open for
writing, streams too: the server saw the close only when its second SSE ping (every 15 s) failed,
so a cancelled call ran on (a rename would finish) and a listen stream held its URIs for 15-30 s.
Here the pings are an hour apart, so only the FIN itself can end the stream. A request read whole
whose answer has not started is still answered after a half-close (test_http_edge_s84_e2e).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import anyio
import mcp.server._streamable_http_modern as modern
import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.test_progress_e2e import RENAME, _cancel_at_first_progress, hub_server
from tests.long_changes import Hold, index_state, vault_bytes
from tests.polling import until

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def _no_pings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(modern, "_SSE_PING_INTERVAL", 3600.0)


async def test_a_call_cancelled_by_closing_its_stream_stops_without_a_ping(tmp_path: Path) -> None:
    hold = Hold("prepare", 1, label="rename_note")
    async with hub_server(tmp_path, hold) as (url, vg):
        files, index = vault_bytes(vg.root), await index_state(vg.app.db)
        async with Client(url, mode="auto") as client:
            await _cancel_at_first_progress(client, "rename_note", RENAME)
            with anyio.fail_after(60):  # a bound, not a timing: before, only a ping (here 1 h) ended it
                await hold.cancelled.wait()
            assert vault_bytes(vg.root) == files
            assert await index_state(vg.app.db) == index


async def test_a_closed_listen_stream_frees_its_uris_without_a_ping(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault({"A.md": "# A\n"})) as (url, vg), Client(url, mode="auto") as client:
        listen = vg.app.resources.listen
        async with client.listen(resource_subscriptions=["vault://main/A.md", "vault://main/B.md"]):
            assert listen.held == 2
        await until(lambda: listen.held == 0, "the closed stream's URIs freed")
