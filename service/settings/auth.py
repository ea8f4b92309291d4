"""Caller authentication (`[auth]`): `none` (loopback only) or JWT bearer tokens, and the RFC 9728
metadata the HTTP tier publishes. Secrets are `SecretStr`: never printed."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, model_validator

from service.settings.base import Section


class AuthSettings(Section):
    mode: Literal["none", "jwt"] = Field(default="none", description="`none` is allowed on loopback only.")
    jwt_secret: SecretStr | None = Field(default=None, description="HS256 shared secret (>= 32 bytes).")
    jwks_file: Path | None = Field(default=None, description="Local JWKS file for RS256/ES256/EdDSA.")
    jwks: dict[str, Any] | None = Field(default=None, description="Inline JWKS.")
    issuer: str | None = Field(default=None, description="Required `iss` claim (when set).")
    audience: str | None = Field(default=None, description="Required `aud` claim (when set).")
    leeway_seconds: int = Field(default=30, ge=0, le=600, description="Clock skew allowed for exp/nbf.")
    resource_url: str | None = Field(
        default=None,
        description="Public URL of the MCP endpoint (RFC 9728 `resource`), e.g. https://notes.example.com/mcp; "
        "default: derived from the request.",
    )
    authorization_servers: list[str] = Field(
        default_factory=list, description="Issuers clients may get tokens from (RFC 9728); default: [issuer]."
    )
    protect_metrics: bool = Field(default=False, description="Require a bearer token with `admin` for /metrics.")

    @model_validator(mode="after")
    def _check_jwt(self) -> AuthSettings:
        # Here rather than in Settings: a section's own check is reported together with every
        # other field error of the configuration (Settings' cross-checks run only once all pass).
        problems: list[str] = []
        if self.mode == "jwt":
            if self.jwt_secret is None and self.jwks is None and self.jwks_file is None:
                problems.append(
                    "auth.mode = 'jwt' needs auth.jwt_secret (VAULTGATE_AUTH__JWT_SECRET, HS256) "
                    "or a JWKS (auth.jwks / VAULTGATE_AUTH__JWKS_FILE)"
                )
            if self.jwt_secret is not None and len(self.jwt_secret.get_secret_value().encode()) < 32:
                problems.append("auth.jwt_secret must be at least 32 bytes (use e.g. `openssl rand -base64 48`)")
        if problems:
            raise ValueError("; ".join(problems))
        return self


def auth_line(auth: AuthSettings) -> str:
    """How HTTP callers are authenticated, for the start-up log (never a secret)."""
    if auth.mode == "none":
        return "none: HTTP callers (loopback only) and stdio callers hold every scope"
    keys = (
        f"JWKS file {auth.jwks_file}"
        if auth.jwks_file is not None
        else "inline JWKS"
        if auth.jwks is not None
        else "HS256 shared secret"
    )
    checks = "".join(
        f", {name} {value!r}" for name, value in (("issuer", auth.issuer), ("audience", auth.audience)) if value
    )
    return f"jwt bearer tokens ({keys}{checks}) for HTTP; stdio callers hold every scope"
