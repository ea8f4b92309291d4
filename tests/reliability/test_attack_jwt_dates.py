"""A signed token whose `exp` or `nbf` is no finite number (U1, session 80).

Python's JSON reader takes `Infinity`, `-Infinity` and `NaN`, and a number such as `1e400` as
infinity; the claim checks only asked for an int or a float. A token (signed with the right key:
an issuer's bug, or a holder of the secret minting a token that never expires) with
`"exp": Infinity` or `1e400` was accepted and then crashed the HTTP edge turning its expiry into
an int (HTTP 500); `"exp": NaN` the same (NaN compares false, so "expired?" said no); `"nbf": NaN`
was accepted as valid already. Now `exp` and `nbf` must be finite numbers of seconds: anything
else is `invalid_token` (401), through the verifier and over HTTP.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from service.errors import TokenRejected
from service.security.jwt import JwtVerifier
from service.settings import AuthSettings
from tests.conftest import e2e
from tests.keys import SECRET

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def signed(payload: bytes) -> str:
    """An HS256 token over `payload` exactly as written (JSON's non-standard numbers included)."""

    def part(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    head = part(b'{"alg":"HS256","typ":"JWT"}') + "." + part(payload)
    sig = hmac.new(SECRET.encode(), head.encode(), hashlib.sha256).digest()
    return head + "." + part(sig)


def claims(exp: str, nbf: str | None = None) -> bytes:
    text = '{"sub":"agent","scope":"read:vault","exp":' + exp + ("" if nbf is None else ',"nbf":' + nbf) + "}"
    return text.encode()


SOON = str(int(time.time()) + 3600)
ODD = {
    "exp Infinity": claims("Infinity"),
    "exp -Infinity": claims("-Infinity"),
    "exp NaN": claims("NaN"),
    "exp 1e400": claims("1e400"),
    "exp 10**400": claims("1" + "0" * 400),
    "nbf NaN": claims(SOON, "NaN"),
    "nbf Infinity": claims(SOON, "Infinity"),
    "nbf 1e400": claims(SOON, "1e400"),
}


@pytest.mark.parametrize("name", sorted(ODD))
def test_a_date_that_is_no_finite_number_is_refused(name: str) -> None:
    verifier = JwtVerifier(AuthSettings(mode="jwt", jwt_secret=SECRET))
    with pytest.raises(TokenRejected):
        verifier.verify(signed(ODD[name]))
    assert verifier.verify(signed(claims(SOON))).principal.subject == "agent"  # the same token, dated


async def test_odd_dates_are_401_over_http_and_the_server_goes_on(make_vault: Callable[..., Path]) -> None:
    auth = {"mode": "jwt", "jwt_secret": SECRET}
    async with e2e(make_vault({"Home.md": "# Home\n"}), auth=auth) as (url, _), httpx2.AsyncClient(timeout=60) as http:
        for name, payload in ODD.items():
            answer = await http.post(url, json=INIT, headers={**HEADERS, "authorization": f"Bearer {signed(payload)}"})
            assert answer.status_code == 401, (name, answer.status_code, answer.text[:200])
            assert answer.json()["error"] == "invalid_token", (name, answer.text[:200])
        answer = await http.post(url, json=INIT, headers={**HEADERS, "authorization": f"Bearer {signed(claims(SOON))}"})
        assert answer.status_code == 200, answer.text[:200]
