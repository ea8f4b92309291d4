"""The capability probe: what each vault's bridge can do right now, for `server_health`.

One probe asks the plugin `GET /` (reachable, its version and Obsidian's, whether the key is
accepted) and, when the key is, the companion's `GET /vaultgate/v1/probe/` (its version, its
routes, which community plugins it watches are installed). A failure is recorded in the report
with the bridge error's code and reason; a probe itself never raises a bridge error.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.bridges.answers import clip
from service.bridges.rest_api import LocalRestApi
from service.errors import VaultgateError

BridgeStateName = Literal["not_probed", "ready", "unreachable", "incompatible", "unauthorized"]
# routes and plugins kept of the companion's probe (it registers some 10 routes and watches 3
# plugins): a report is in every server_health answer, which a probe of megabytes would overflow
MOST_LISTED = 100


class CommunityPlugin(BaseModel):
    id: str = Field(description="The community plugin's id (templater-obsidian, quickadd, make-md).")
    installed: bool = Field(description="Whether it is installed and enabled in the running Obsidian.")
    version: str | None = Field(description="Its version when installed.")


class BridgeReport(BaseModel):
    vault: str = Field(description="Vault id.")
    url: str = Field(description="The Local REST API address of this vault's bridge.")
    state: BridgeStateName = Field(
        description="ready: reachable and the key accepted; unreachable: nothing answers (Obsidian closed?); "
        "unauthorized: the key is missing or refused; incompatible: another certificate or answer shape; "
        "not_probed: no probe finished yet."
    )
    checked_at: float | None = Field(description="Unix time of the probe (null: not probed yet).")
    plugin_version: str | None = Field(description="The Local REST API plugin's version.")
    obsidian_version: str | None = Field(description="Obsidian's API version as the plugin reports it.")
    authenticated: bool | None = Field(description="Whether the plugin accepted the API key.")
    companion: bool | None = Field(
        description="Whether the vaultgate companion's /vaultgate/v1 routes answer (null: could not be asked)."
    )
    companion_version: str | None = Field(description="The companion's version.")
    companion_routes: list[str] = Field(description="The routes the companion registered, as 'get /vaultgate/v1/…'.")
    community_plugins: list[CommunityPlugin] = Field(description="The plugins the companion reports on.")
    error: dict[str, Any] | None = Field(description="The failure of the last probe: {code, reason, message}.")


def not_probed(vault: str, url: str) -> BridgeReport:
    return BridgeReport(
        vault=vault,
        url=url,
        state="not_probed",
        checked_at=None,
        plugin_version=None,
        obsidian_version=None,
        authenticated=None,
        companion=None,
        companion_version=None,
        companion_routes=[],
        community_plugins=[],
        error=None,
    )


def _state_of(exc: VaultgateError) -> BridgeStateName:
    reason = exc.details.get("reason")
    if reason in ("unauthorized", "api_key_missing"):
        return "unauthorized"
    return "unreachable" if exc.code == "plugin_unreachable" else "incompatible"


def _failed(report: BridgeReport, exc: VaultgateError) -> BridgeReport:
    error = {"code": exc.code, "reason": exc.details.get("reason"), "message": exc.message}
    return report.model_copy(update={"state": _state_of(exc), "error": error})


def _plugins(body: dict[str, Any]) -> list[CommunityPlugin]:
    found = body.get("plugins")
    if not isinstance(found, dict):
        return []
    out = []
    for pid, info in sorted(found.items())[:MOST_LISTED]:
        info = info if isinstance(info, dict) else {}
        version = info.get("version")
        out.append(
            CommunityPlugin(
                id=clip(str(pid)),
                installed=bool(info.get("installed")),
                version=clip(version) if isinstance(version, str) else None,
            )
        )
    return out


async def probe(vault: str, client: LocalRestApi) -> BridgeReport:
    """Ask the plugin, then the companion; never raises a bridge error."""
    report = not_probed(vault, client.base_url).model_copy(update={"checked_at": time.time()})
    try:
        info = await client.server_info()
    except VaultgateError as exc:
        return _failed(report, exc)
    versions = info.get("versions") or {}
    manifest = info.get("manifest") if isinstance(info.get("manifest"), dict) else {}
    plugin_version = versions.get("self") or (manifest or {}).get("version")
    report = report.model_copy(
        update={
            "plugin_version": clip(str(plugin_version)) if plugin_version is not None else None,
            "obsidian_version": clip(str(versions["obsidian"])) if versions.get("obsidian") is not None else None,
            "authenticated": info.get("authenticated") is True,
        }
    )
    if info.get("authenticated") is not True:
        missing = not client.has_key()
        reason = "api_key_missing" if missing else "unauthorized"
        message = (
            f"the environment variable {client.settings.api_key_env} is empty"
            if missing
            else "the plugin does not accept the API key"
        )
        return report.model_copy(
            update={
                "state": "unauthorized",
                "error": {"code": "plugin_incompatible", "reason": reason, "message": message},
            }
        )
    try:
        companion = await client.companion_probe()
    except VaultgateError as exc:
        return _failed(report, exc)
    if companion is None:
        return report.model_copy(update={"state": "ready", "companion": False})
    routes = companion.get("routes")
    version = companion["companion"].get("version")
    return report.model_copy(
        update={
            "state": "ready",
            "companion": True,
            "companion_version": clip(str(version)) if version is not None else None,
            "companion_routes": [clip(str(r)) for r in routes[:MOST_LISTED]] if isinstance(routes, list) else [],
            "community_plugins": _plugins(companion),
        }
    )
