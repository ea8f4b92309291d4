"""Auth benchmark: JWT-authenticated read_note vs unauthenticated, same vault, same client.

Run: `python -m tests.bench.bench_auth [--notes 10000] [--calls 400]`. Starts `vaultgate serve`
twice on the standard workload — auth `none`, then auth `jwt` with an HS256 secret and an RS256
JWKS — and measures read_note p50/p95 through the SDK client over HTTP with one client
(tokens are verified once and then served from the verified-token cache, as in production).
Target: JWT p50 within 1 ms of unauthenticated. Also reports the in-process cost of one
uncached verification per algorithm (`verify_cold_us`: what a new token costs once).
Prints JSON (tests/bench/common.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from pydantic import SecretStr

from service.security.jwt import JwtVerifier
from service.settings import AuthSettings
from tests.bench.common import ServerProcess, report, standard_vault, summary_ms, vaultgate_argv, wait_ready
from tests.keys import SECRET, claims, hs, jwks, keys, sign


async def measure(url: str, paths: list[str], calls: int, token: str | None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers)
    async with http, Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
        await client.call_tool("read_note", {"path": paths[0]})
        samples: list[float] = []
        for i in range(calls):
            t0 = time.perf_counter()
            result = await client.call_tool("read_note", {"path": paths[i % len(paths)]})
            samples.append(time.perf_counter() - t0)
            if result.is_error:
                raise RuntimeError(result.structured_content)
    return summary_ms(samples)


def cold_verify_us(rounds: int = 200) -> dict[str, float]:
    """Median microseconds of one first-time verification (distinct tokens defeat the cache)."""
    cfg = AuthSettings(mode="jwt", jwt_secret=SecretStr(SECRET), jwks=jwks("rsa", "ec", "ed"))
    verifier = JwtVerifier(cfg, cache_size=rounds * 4 + 1)
    signers = {
        "HS256": lambda c: hs(c),
        "RS256": lambda c: sign("RS256", c, keys()["rsa"], kid="rsa-1"),
        "ES256": lambda c: sign("ES256", c, keys()["ec"], kid="ec-1"),
        "EdDSA": lambda c: sign("EdDSA", c, keys()["ed"], kid="ed-1"),
    }
    out: dict[str, float] = {}
    for alg, make in signers.items():
        tokens = [make(claims(jti=f"{alg}-{i}")) for i in range(rounds)]
        samples = []
        for token in tokens:
            t0 = time.perf_counter()
            verifier.verify(token)
            samples.append(time.perf_counter() - t0)
        samples.sort()
        out[alg] = round(samples[len(samples) // 2] * 1e6, 1)
    return out


async def main(notes: int, calls: int) -> None:
    vault, meta = standard_vault(notes)
    rng = random.Random(11)
    paths = [rng.choice(meta["notes"])["path"] for _ in range(calls)]
    result: dict[str, Any] = {"notes": notes, "calls": calls}
    # The bench measures auth overhead, not the rate limiter: both servers run without throttling.
    unthrottled = {"VAULTGATE_THROTTLE__ENABLED": "false"}
    plain = ServerProcess(vaultgate_argv(vault), env=unthrottled)
    try:
        url = plain.start()
        await wait_ready(url)
        result["read_note_no_auth"] = await measure(url, paths, calls, None)
    finally:
        plain.stop()
    with tempfile.TemporaryDirectory() as tmp:
        jwks_file = Path(tmp) / "jwks.json"
        jwks_file.write_text(json.dumps(jwks("rsa")), encoding="utf-8")
        env = {
            **unthrottled,
            "VAULTGATE_AUTH__MODE": "jwt",
            "VAULTGATE_AUTH__JWT_SECRET": SECRET,
            "VAULTGATE_AUTH__JWKS_FILE": str(jwks_file),
        }
        secured = ServerProcess(vaultgate_argv(vault), env=env)
        try:
            url = secured.start()
            await wait_ready(url)
            result["read_note_jwt_hs256"] = await measure(url, paths, calls, hs(claims()))
            rs = sign("RS256", claims(), keys()["rsa"], kid="rsa-1")
            result["read_note_jwt_rs256"] = await measure(url, paths, calls, rs)
        finally:
            secured.stop()
    base = result["read_note_no_auth"]["p50_ms"]
    for name in ("hs256", "rs256"):
        result[f"jwt_{name}_p50_delta_ms"] = round(result[f"read_note_jwt_{name}"]["p50_ms"] - base, 3)
    result["target_p50_delta_ms"] = 1.0
    result["verify_cold_us"] = cold_verify_us()
    report("bench_auth", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=400)
    ns = parser.parse_args()
    asyncio.run(main(ns.notes, ns.calls))
