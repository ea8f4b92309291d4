"""`vaultgate stdio` refuses a request whose id a request in flight carries, as the HTTP front
does (tests/e2e/test_request_id_in_flight_e2e.py: JSON-RPC -32600 naming the id), on the fast
path and on the SDK's, in both protocol eras; the first request is answered as if the second
had never come, and an id whose answer went out is free again. Before, both requests ran and
both were answered with the one id: the client matched the second answer to the first request.

The first call waits on a hung Obsidian (the Local REST API stand-in holds its answer until the
test releases it), so it is in flight while the others are sent: no timing. The first copy of
its id goes out at once behind it, so it reaches the front before the server loaded (waiting
for the attach) or after: both are refused the same way. The server is the CLI's stdio start
(front, then app): `python -m tests.stopped_mid_call … stdio`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.protocol.framing import reused_id
from tests.e2e.test_stdio_stopped_mid_call_e2e import PATHS, Wire, _ended, _open, _stdio, _until
from tests.tools.bridges.standin import Obsidian

READ = ("read_note", {"path": "Home"})


def _of(wire: Wire, rid: Any) -> list[dict[str, Any]]:
    """The answers to requests with this id (the client's own: no request of the server's)."""
    return [m for m in wire.received if m.get("id") == rid and "method" not in m]


def _answered(wire: Wire, rid: Any) -> list[dict[str, Any]]:
    """The answers to `rid` other than the refusal of a reused id."""
    return [m for m in _of(wire, rid) if m.get("error", {}).get("code") != -32600]


@pytest.mark.parametrize(("modern", "sdk"), PATHS)
async def test_a_request_reusing_the_id_of_one_in_flight_is_refused_and_the_first_answered(
    make_vault: Callable[..., Path], tmp_path: Path, modern: bool, sdk: bool
) -> None:
    obsidian = Obsidian(hold=True)
    async with _stdio(make_vault({"Home.md": "# Home\n"}), tmp_path, obsidian) as (wire, errlog):
        call = await _open(wire, modern, sdk)
        await wire.send(call(2, "list_quickadd_actions", {}))
        await wire.send(call(2, *READ))  # at once: it may find the server still loading
        await _until(lambda: obsidian.sent)  # the first call 2 waits on Obsidian
        await wire.send(call("2", *READ))  # "2" is 2 (the SDK correlates them as one)
        await wire.send(call(3, *READ))
        await _until(lambda: _of(wire, "2") and _answered(wire, 3))
        refused = _of(wire, 2) + _of(wire, "2")
        assert refused == [reused_id(2).error(), reused_id("2").error()], refused  # the HTTP front's answer
        assert refused[0]["error"]["message"].startswith("Invalid Request: request id 2 is in use by a request in")
        assert not _answered(wire, 3)[0].get("result", {}).get("isError"), _answered(wire, 3)
        obsidian.released.set()
        await _until(lambda: _answered(wire, 2))
        first = _answered(wire, 2)
        assert len(first) == 1 and "result" in first[0], first  # the held call's answer (its tool's error or not)
        assert "# Home" not in str(first[0]), first  # not read_note's
        await wire.send(call(2, *READ))  # answered: the id is free again
        await _until(lambda: len(_answered(wire, 2)) == 2)
        again = _answered(wire, 2)[1]
        assert not again["result"].get("isError") and "# Home" in str(again["result"]), again
        assert len(_of(wire, 2)) == 3 and len(_of(wire, "2")) == 1  # nothing else for either id
        assert wire.proc.stdin is not None
        await wire.proc.stdin.aclose()
        assert await _ended(wire, errlog) == 0


@pytest.mark.parametrize(("modern", "sdk"), PATHS)
async def test_a_request_cancelled_under_its_id_written_as_a_number_frees_it(
    make_vault: Callable[..., Path], tmp_path: Path, modern: bool, sdk: bool
) -> None:
    """The client cancels request "9" as 9 (the SDK correlates them: it stops the call and answers
    nothing). The id was held on the SDK's path: every later request 9 was refused as reused."""
    obsidian = Obsidian(hold=True)
    async with _stdio(make_vault({"Home.md": "# Home\n"}), tmp_path, obsidian) as (wire, errlog):
        call = await _open(wire, modern, sdk)
        await wire.send(call("9", "list_quickadd_actions", {}))  # type: ignore[arg-type]
        await _until(lambda: obsidian.sent)  # in flight, held on Obsidian
        await wire.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}})
        await wire.send({"jsonrpc": "2.0", "id": "after", "method": "ping"})  # read after the cancel
        await _until(lambda: _of(wire, "after"))
        await wire.send(call(9, *READ))
        await _until(lambda: _of(wire, 9))
        assert len(_of(wire, 9)) == 1 and "# Home" in str(_of(wire, 9)[0].get("result")), _of(wire, 9)
        obsidian.released.set()
        assert wire.proc.stdin is not None
        await wire.proc.stdin.aclose()
        assert await _ended(wire, errlog) == 0
        assert _of(wire, "9") == []  # the cancelled request is owed nothing, not even "Connection closed"
