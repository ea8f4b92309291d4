"""The bridges of the served vaults: one Local REST API client per vault with a `[vaults.bridge]`,
and the last capability probe of each.

A component of the app: `start` launches one background probe per bridge whose
`probe_at_start` is on and returns at once (the server never waits for Obsidian); `stop` cancels
whatever probe is still running. `probe(vault)` runs one on demand (`server_health` with
`probe_bridges`). A vault served later (`reload_vault`) gets its client at its first use.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from service.bridges.probe import BridgeReport, not_probed, probe
from service.bridges.rest_api import LocalRestApi
from service.bridges.tls import PLUGIN
from service.errors import PluginMissing
from service.tasks import cancel_and_wait

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from service.settings import VaultConfig

log = logging.getLogger(__name__)


class Bridges:
    name = "bridges"

    def __init__(self, vaults: Iterable[VaultConfig], environ: Mapping[str, str] | None = None) -> None:
        self._environ = environ
        self._configs: dict[str, VaultConfig] = {}
        self._clients: dict[str, LocalRestApi] = {}
        self._reports: dict[str, BridgeReport] = {}
        self._tasks: set[asyncio.Task[BridgeReport | None]] = set()
        for cfg in vaults:
            self._known(cfg)

    def _known(self, cfg: VaultConfig) -> LocalRestApi | None:
        if cfg.bridge is None:
            return None
        if self._configs.get(cfg.id) is not cfg:  # new, or a vault re-added with another config
            self._configs[cfg.id] = cfg
            self._clients[cfg.id] = LocalRestApi(cfg.bridge, self._environ)
            self._reports[cfg.id] = not_probed(cfg.id, cfg.bridge.url)
        return self._clients[cfg.id]

    def client(self, cfg: VaultConfig) -> LocalRestApi:
        """This vault's client; `plugin_missing` when the vault has no `[vaults.bridge]`."""
        found = self._known(cfg)
        if found is None:
            raise PluginMissing(
                f"vault {cfg.id!r} has no bridge to Obsidian configured",
                details={"plugin": PLUGIN, "reason": "not_configured", "vault": cfg.id},
                hint="Add a [vaults.bridge] block for this vault (docs/bridges.md) and restart.",
            )
        return found

    def configured(self, cfg: VaultConfig) -> bool:
        return self._known(cfg) is not None

    async def probe(self, cfg: VaultConfig) -> BridgeReport:
        report = await probe(cfg.id, self.client(cfg))
        self._reports[cfg.id] = report
        if report.error is not None:
            log.info("bridge of vault %s: %s (%s)", cfg.id, report.state, report.error.get("reason"))
        else:
            log.info("bridge of vault %s: ready, companion %s", cfg.id, "present" if report.companion else "absent")
        return report

    async def _probe_quietly(self, cfg: VaultConfig) -> BridgeReport | None:
        try:
            return await self.probe(cfg)
        except Exception:  # a background probe must not end as an unretrieved task error
            log.exception("probing the bridge of vault %s failed", cfg.id)
            return None

    def report(self, cfg: VaultConfig) -> BridgeReport | None:
        return self._reports.get(cfg.id) if self._known(cfg) is not None else None

    async def settled(self) -> None:
        """Wait for the probes started at start-up (tests; the server itself never waits)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks))

    async def start(self) -> None:
        for cfg in list(self._configs.values()):
            assert cfg.bridge is not None
            if cfg.bridge.probe_at_start:
                task = asyncio.create_task(self._probe_quietly(cfg), name=f"bridge-probe-{cfg.id}")
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def stop(self) -> None:
        for task in list(self._tasks):
            await cancel_and_wait(task)
