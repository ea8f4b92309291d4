"""The note reads a memory test counts (`counted_reads`)."""

from __future__ import annotations

from typing import Any

import pytest

from service.vault.files import VaultFiles


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The vault paths every note read from now on reads, in order."""
    reads: list[str] = []
    real_read = VaultFiles.read

    def counting(self: VaultFiles, vp: Any, *args: Any, **kwargs: Any) -> Any:
        reads.append(vp.rel)
        return real_read(self, vp, *args, **kwargs)

    monkeypatch.setattr(VaultFiles, "read", counting)
    return reads
