"""One served vault at run time: its config, path resolver, file access and change bus.

Later components attach themselves here (the index, the watcher); tools reach a vault only
through this object, handed to them by the dispatch chain after vault resolution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.settings import VaultConfig, WriteSettings
from service.vault.events import ChangeBus
from service.vault.files import VaultFiles
from service.vault.paths import ALWAYS_HIDDEN, VaultPaths, obsidian_url


@dataclass
class Vault:
    config: VaultConfig
    paths: VaultPaths
    files: VaultFiles
    bus: ChangeBus
    extensions: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, config: VaultConfig, writes: WriteSettings, extra_hidden: tuple[str, ...] = ()) -> Vault:
        bus = ChangeBus()
        hidden = tuple(dict.fromkeys((*ALWAYS_HIDDEN, writes.trash_folder, *extra_hidden)))
        paths = VaultPaths(config.path, hidden)
        files = VaultFiles(paths, bus, max_concurrent=writes.max_concurrent, trash_folder=writes.trash_folder)
        return cls(config=config, paths=paths, files=files, bus=bus)

    @property
    def id(self) -> str:
        return self.config.id

    @property
    def name(self) -> str:
        return self.config.display_name

    def url(self, rel: str) -> str:
        return obsidian_url(self.name, rel)

    def new_url(self, rel: str) -> str:
        """The obsidian:// URL that creates the note at `rel` (for a link to no note yet)."""
        return obsidian_url(self.name, rel, "new")
