"""The stdio front's read gate (service/protocol/read_gate.py): when the front answers a read
itself, when it stops for good, and that holding the server back never waits on a closed gate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.protocol.first_reads import facts_of
from service.protocol.read_gate import ReadGate
from tests.conftest import started

HANDSHAKE = "2025-06-18"
READ = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_note", "arguments": {"path": "A"}}}


async def _open_gate(make_vault: Callable[..., Path]) -> ReadGate:
    root = make_vault({"A.md": "# A\n"})
    async with started(root) as vg:
        await vg.indexed()
        facts = facts_of(vg.app)
    gate = ReadGate(str(root))
    gate.facts = facts
    return gate


async def test_an_open_gate_answers_a_plain_read_until_the_server_is_built(make_vault: Callable[..., Path]) -> None:
    gate = await _open_gate(make_vault)
    sent: list[bytes] = []
    assert gate.answer(READ, HANDSHAKE, sent.append)
    assert len(sent) == 1 and b'"id":1' in sent[0]
    reads = gate.take()
    assert reads is not None and [rid for rid, _, _ in reads.answered] == [1]
    assert not gate.answer(READ, HANDSHAKE, sent.append)  # built: the chain answers from now on
    assert len(sent) == 1


async def test_the_gate_answers_nothing_before_the_handshake_after_a_deferral_or_for_other_methods(
    make_vault: Callable[..., Path],
) -> None:
    gate = await _open_gate(make_vault)
    sent: list[bytes] = []
    assert not gate.answer(READ, None, sent.append)  # `initialize` not answered yet
    assert not gate.answer({**READ, "method": "tools/list"}, HANDSHAKE, sent.append)
    notification = {k: v for k, v in READ.items() if k != "id"}
    assert not gate.answer(notification, HANDSHAKE, sent.append)
    gate.defer()  # a question went to the server: every later one waits behind it
    assert not gate.answer(READ, HANDSHAKE, sent.append)
    assert sent == []


def test_a_gate_without_facts_or_stored_for_another_root_answers_nothing(tmp_path: Path) -> None:
    sent: list[bytes] = []
    assert not ReadGate(str(tmp_path)).answer(READ, HANDSHAKE, sent.append)
    gate = ReadGate(str(tmp_path))
    facts: dict[str, Any] = {"version": 1, "root": str(tmp_path / "elsewhere")}
    gate.facts = facts
    assert not gate.answer(READ, HANDSHAKE, sent.append)
    assert gate.facts is None and sent == []  # dropped: later questions do not try again


def test_holding_the_server_back_ends_at_once_when_the_gate_is_closed_or_has_no_facts(tmp_path: Path) -> None:
    assert ReadGate(str(tmp_path)).wait_quiet()  # no facts: nothing to wait for
    gate = ReadGate(str(tmp_path))
    gate.facts = {"version": 1}
    gate.answered()
    gate.defer()
    assert gate.wait_quiet()  # closed: the server loads now, however recent the last answer
    quiet = ReadGate(str(tmp_path))
    quiet.facts = {"version": 1}  # last answer long ago (never): quiet already
    assert quiet.wait_quiet()
