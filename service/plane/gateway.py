"""The inference gateway: an OpenAI-compatible chat-completions endpoint for the plane's jobs that
write (`[inference]`). Each request is bounded by the configured timeout and `max_tokens`, and a
run by its token budget (`Budget`); the key comes from the environment and never appears in an
error or a log line. Anything but a usable answer — the server down or slow, an HTTP error, a body
that is not the published shape — raises `GatewayFailed`, and the job that asked is skipped with
that reason and tried again at the next run. A job sends only text the caller rules let it
(`service.plane.summaries`). Touches nothing but the network.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from service.settings import InferenceSettings


class GatewayFailed(Exception):
    """The gateway gave no usable answer (or the run's token budget is spent)."""


@dataclass
class Budget:
    """Tokens one run may still spend (prompt and answer)."""

    left: int

    def take(self, tokens: int) -> None:
        self.left -= tokens


def estimate(text: str) -> int:
    return len(text) // 4 + 1  # about four characters a token: the budget's estimate before a call


class Gateway:
    def __init__(self, settings: InferenceSettings) -> None:
        self.settings = settings
        self.last_error: str | None = None

    def unavailable(self) -> str | None:
        """Why a job that needs the gateway cannot run, or None."""
        if self.settings.provider == "none":
            return "no inference gateway is configured ([inference] provider = 'none')"
        if not self.settings.model:
            return "[inference] model is not set"
        return None

    def describe(self) -> str:
        reason = self.unavailable()
        if reason is not None:
            return "not configured"
        state = f"{self.settings.model} at {self.settings.base_url}"
        return state + (f" (last error: {self.last_error})" if self.last_error else "")

    def budget(self) -> Budget:
        return Budget(self.settings.max_tokens_per_run)

    async def chat(self, system: str, user: str, budget: Budget) -> str:
        need = estimate(system) + estimate(user) + self.settings.max_tokens_per_answer
        if need > budget.left:
            raise GatewayFailed(f"the run's token budget is spent ({budget.left} left, {need} needed)")
        payload = {
            "model": self.settings.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "max_tokens": self.settings.max_tokens_per_answer,
            "temperature": 0,
        }
        import httpx2  # at the first request: a server that never calls out never loads it

        key = os.environ.get(self.settings.api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        url = self.settings.base_url.rstrip("/") + "/v1/chat/completions"
        try:
            async with httpx2.AsyncClient(timeout=self.settings.timeout_s) as client:
                resp = await client.post(url, json=payload, headers=headers)
        except httpx2.HTTPError as exc:
            raise self._failed(f"unreachable or too slow: {type(exc).__name__}") from exc
        if resp.status_code >= 400:
            raise self._failed(f"HTTP {resp.status_code}")
        try:
            body: Any = resp.json()
            text = body["choices"][0]["message"]["content"]
            if not isinstance(text, str):
                raise TypeError("content is not text")
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise self._failed(f"an answer not in the chat-completions shape ({type(exc).__name__})") from exc
        usage = body.get("usage") if isinstance(body, dict) else None
        spent = usage.get("total_tokens") if isinstance(usage, dict) else None
        budget.take(int(spent) if isinstance(spent, int) and spent > 0 else need)
        self.last_error = None
        return text

    def _failed(self, reason: str) -> GatewayFailed:
        self.last_error = reason
        return GatewayFailed(reason)
