"""`[vaults.bridge]`: how a vault reaches a running Obsidian through the Local REST API plugin.

A vault without the block has no bridge (the bridge tools answer `plugin_missing`). The API key
is read from the environment variable `api_key_env` names, never from the config file. The
plugin's self-signed certificate is trusted through `cert_file` (the certificate itself, as the
plugin serves it at `/obsidian-local-rest-api.crt`) or `cert_fingerprint` (its SHA-256), never by
switching verification off; with neither, the system's trust store decides. Only `https` URLs:
the plugin's unencrypted port would carry the key in clear.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator

from service.settings.base import Section

_FINGERPRINT = re.compile(r"^[0-9a-f]{64}$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def normalize_fingerprint(text: str) -> str:
    """`AB:CD:…`, `ab cd …` or plain hex → 64 lower-case hex digits (raises ValueError otherwise)."""
    value = re.sub(r"[\s:]", "", text.strip().lower())
    if value.startswith("sha256"):  # 'sha256/…' or 'SHA256 Fingerprint=…' copied from a tool
        value = re.sub(r"^sha256\W*(fingerprint\W*)?", "", value)
    if not _FINGERPRINT.match(value):
        raise ValueError("cert_fingerprint must be the certificate's SHA-256: 64 hex digits, ':' separators allowed")
    return value


class BridgeSettings(Section):
    """One vault's bridge to the Local REST API plugin of the Obsidian that has it open."""

    url: str = Field(
        default="https://127.0.0.1:27124", description="The Local REST API's HTTPS address (its default port)."
    )
    api_key_env: str = Field(
        default="OBSIDIAN_API_KEY",
        description="Environment variable holding the plugin's API key (Settings → Local REST API).",
    )
    cert_file: Path | None = Field(
        default=None,
        description="The plugin's certificate (PEM), trusted as the only authority for this bridge; "
        "relative to the config file's folder.",
    )
    cert_fingerprint: str | None = Field(
        default=None,
        description="SHA-256 of the plugin's certificate (hex, ':' allowed): the one certificate accepted.",
    )
    safe_commands: list[str] = Field(
        default_factory=list,
        description="Obsidian command ids execute_command may run (after a human confirms); empty: none may run.",
    )
    timeout_s: float = Field(
        default=5.0, gt=0, le=120, description="Bound of one request to the plugin, connect included."
    )
    probe_at_start: bool = Field(
        default=True, description="Probe the plugin in the background when the server starts (never delays the start)."
    )

    @field_validator("url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        parts = urlsplit(value.strip())
        if parts.scheme != "https" or not parts.hostname:
            raise ValueError("bridge url must be https://host[:port] (the plugin's encrypted port; default 27124)")
        if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError("bridge url takes no path, query or credentials: https://host[:port]")
        return f"https://{parts.netloc}"

    @field_validator("api_key_env")
    @classmethod
    def _check_env(cls, value: str) -> str:
        if not _ENV_NAME.match(value):
            raise ValueError("api_key_env names an environment variable (letters, digits, '_'), not the key itself")
        return value

    @field_validator("cert_fingerprint")
    @classmethod
    def _check_fingerprint(cls, value: str | None) -> str | None:
        return None if value is None else normalize_fingerprint(value)

    @field_validator("cert_file")
    @classmethod
    def _expand(cls, value: Path | None) -> Path | None:
        return None if value is None else value.expanduser()  # made absolute by the loader

    @field_validator("safe_commands")
    @classmethod
    def _check_commands(cls, value: list[str]) -> list[str]:
        if any(not c.strip() for c in value):
            raise ValueError("safe_commands holds Obsidian command ids such as 'editor:save-file', not empty strings")
        return list(dict.fromkeys(c.strip() for c in value))

    @model_validator(mode="after")
    def _one_trust(self) -> BridgeSettings:
        if self.cert_file is not None and self.cert_fingerprint is not None:
            raise ValueError("give cert_file or cert_fingerprint, not both")
        return self
