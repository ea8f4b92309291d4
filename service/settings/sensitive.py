"""`[sensitive]`: the secrets guard (seed 003's sensitive-content gate) and what it does.

Two kinds of content make a chunk or a note `sensitive`:

- secrets: spans matching the configured patterns (API keys of common providers, private key
  blocks, bearer tokens and JWTs, card numbers that pass the Luhn check, and `key: value` lines
  whose key names a secret, e.g. `password:` in frontmatter). These can be redacted.
- topics: health or money words and tags (`[search] sensitive_terms`, `sensitive_tags`). These
  are only flagged: there is no span worth hiding, the agent should ask before passing them on.

`mode` (per vault: `[[vaults]] sensitive_mode` overrides it) decides what happens to secrets in
snippets, chunks and bundles: `flag` marks them only, `redact` replaces each span by
`[REDACTED:<kind>]`, `exclude` also leaves notes holding a secret out of semantic results.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from service.settings.base import Section

SensitiveMode = Literal["flag", "redact", "exclude"]

SECRET_KEYS = [
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "client_secret",
    "api_key",
    "apikey",
    "access_key",
    "secret_key",
    "private_key",
    "token",
    "access_token",
    "auth_token",
    "refresh_token",
    "bearer",
]


class SensitiveSettings(Section):
    mode: SensitiveMode = Field(
        default="redact",
        description="What secrets do in snippets, chunks and bundles: flag (mark only), redact (replace each span "
        "by [REDACTED:kind]), exclude (redact, and leave notes holding one out of semantic results). "
        "A vault's sensitive_mode overrides it.",
    )
    builtin_patterns: bool = Field(
        default=True,
        description="Use the builtin patterns (provider API keys, private keys, bearer tokens, JWTs, card numbers).",
    )
    patterns: dict[str, str] = Field(
        default_factory=dict,
        description="Extra patterns: kind name -> Python regular expression (the whole match is the secret).",
    )
    secret_keys: list[str] = Field(
        default_factory=lambda: list(SECRET_KEYS),
        description="Property and 'key: value' line names whose value is a secret (case, '-' and '_' ignored).",
    )

    @field_validator("patterns")
    @classmethod
    def _compile(cls, value: dict[str, str]) -> dict[str, str]:
        for kind, pattern in value.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"[sensitive] patterns.{kind}: {exc}") from None
        return value
