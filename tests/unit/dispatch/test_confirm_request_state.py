"""The confirmation layer's request_state for 2026-07-28 clients, through the whole dispatch
chain: each question is a state of its own, also within one second of the clock, so a decline
of a call whose twin was approved (and its state spent) a moment before is `forbidden` at once
instead of being asked again."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import mcp_types as types
import pytest
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from tests.conftest import started

VAULT = {"A.md": "# A\n", "B.md": "# B\n"}


async def test_a_decline_after_an_approved_twin_in_the_same_second_is_forbidden(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    now = time.time()
    monkeypatch.setattr("service.dispatch.confirm.time", SimpleNamespace(time=lambda: now))  # one second
    session = SimpleNamespace(
        protocol_version=MODERN_PROTOCOL_VERSIONS[0],
        client_capabilities=types.ClientCapabilities(elicitation=types.ElicitationCapability()),
    )
    request = SimpleNamespace(session=session, request_id=1)
    yes = {"vaultgate_confirm": types.ElicitResult(action="accept", content={"confirm": True})}
    no = {"vaultgate_confirm": types.ElicitResult(action="decline")}
    args = {"path": "A", "permanent": True}
    async with started(make_vault(VAULT)) as vg:
        call = vg.app.dispatcher.call
        first = await call("delete_note", args, principal=vg.principal, request=request)
        assert first.input_required is not None
        done = await call(
            "delete_note", args, principal=vg.principal, request=request,
            input_responses=yes, request_state=first.input_required.request_state,
        )  # fmt: skip
        assert not done.is_error
        await vg.ok("create_note", path="A", content="# A\n")  # as it was: the same question again
        again = await call("delete_note", args, principal=vg.principal, request=request)
        assert again.input_required is not None
        assert again.input_required.request_state != first.input_required.request_state
        declined = await call(
            "delete_note", args, principal=vg.principal, request=request,
            input_responses=no, request_state=again.input_required.request_state,
        )  # fmt: skip
        assert declined.is_error and declined.structured is not None
        error = declined.structured["error"]
        assert error["code"] == "forbidden" and error["details"]["reason"] == "declined"
        assert (vg.root / "A.md").read_text() == "# A\n"


@pytest.mark.parametrize(
    "forged",
    ["\u00b2.nonce.mac", "9" * 5000 + ".nonce.mac", "9999999999.nonce.\u00e9"],
    ids=["superscript-digit", "5000-digits", "non-ascii-mac"],
)
async def test_a_forged_request_state_is_asked_again_not_a_server_bug(
    make_vault: Callable[..., Path], forged: str
) -> None:
    """The request_state comes back from the client: an expiry `str.isdigit` accepts but `int`
    refuses ('²', over 4300 digits) or a non-ASCII character (`hmac.compare_digest` of `str`
    raises TypeError) made the call an `internal_error` ("a server bug") instead of a state
    that does not seal it — the question is asked again and nothing changes."""
    session = SimpleNamespace(
        protocol_version=MODERN_PROTOCOL_VERSIONS[0],
        client_capabilities=types.ClientCapabilities(elicitation=types.ElicitationCapability()),
    )
    request = SimpleNamespace(session=session, request_id=1)
    yes = {"vaultgate_confirm": types.ElicitResult(action="accept", content={"confirm": True})}
    args = {"path": "A", "permanent": True}
    async with started(make_vault(VAULT)) as vg:
        result = await vg.app.dispatcher.call(
            "delete_note", args, principal=vg.principal, request=request, input_responses=yes, request_state=forged
        )
        assert result.input_required is not None, result.structured
        assert (vg.root / "A.md").read_text() == "# A\n"
