"""One served vault at run time: its config, path resolver, file access, change bus and index.

The vault's index registers itself in `index` (typed by the `VaultIndex` protocol declared
here, so this package never imports the indexer); `move_lock` serializes moves and renames
(`service.graph.moves`), and `previews` keeps what their dry runs found for the next pages.
Tools reach a vault only through this object, handed to them by the dispatch chain after vault
resolution.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

from service.settings import VaultConfig, WriteSettings
from service.settings.limits import LimitsSettings
from service.vault.events import ChangeBus
from service.vault.files import VaultFiles
from service.vault.paths import ALWAYS_HIDDEN, VaultPaths, obsidian_url


class WordMerge(Protocol):
    def ask(self) -> None: ...  # merge the word index in the background, if writes left many segments


class VaultIndex(Protocol):
    """A vault's index as the layers below the indexer see it (`VaultIndexer` is one)."""

    name: str

    def snapshot(self) -> dict[str, Any]: ...

    @property
    def word_merge(self) -> WordMerge: ...


@dataclass
class Vault:
    config: VaultConfig
    paths: VaultPaths
    files: VaultFiles
    bus: ChangeBus
    index: VaultIndex | None = None  # set by the vault's indexer when it is built
    move_lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one move or rename at a time
    # Vault-wide edits' previews kept for their next pages (`service.tools.change_pages.kept_walk`).
    previews: OrderedDict[Hashable, tuple[Hashable, Any]] = field(default_factory=OrderedDict)
    # A long note's secret scan kept for the next pages of a bundle (`service.tools.bundles.packing`).
    scans: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)
    limits: LimitsSettings = field(default_factory=LimitsSettings)  # the app's [limits] (`open`)

    @classmethod
    def open(
        cls,
        config: VaultConfig,
        writes: WriteSettings,
        extra_hidden: tuple[str, ...] = (),
        limits: LimitsSettings | None = None,
    ) -> Vault:
        """`limits`: the serving app's `[limits]` (None: the defaults)."""
        limits = limits if limits is not None else LimitsSettings()
        bus = ChangeBus()
        hidden = tuple(dict.fromkeys((*ALWAYS_HIDDEN, writes.trash_folder, *extra_hidden)))
        paths = VaultPaths(config.path, hidden, refuse_device_names=writes.refuse_device_names)
        files = VaultFiles(paths, bus, max_concurrent=writes.max_concurrent, trash_folder=writes.trash_folder)
        files.max_note_bytes = limits.max_note_bytes
        return cls(config=config, paths=paths, files=files, bus=bus, limits=limits)

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
