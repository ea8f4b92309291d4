"""The vault files a test's calls read whole: `spy` wraps `dirfd.read_file` and `dirfd.read_plain`
(every whole read of a note goes through one of them) and lists the vault-relative paths they
returned bytes of. A read its size check refused before reading (`notesize`) is none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from service.vault import dirfd


def spy(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    reads: list[str] = []
    read_file, read_plain = dirfd.read_file, dirfd.read_plain

    def spy_file(root: Path, rel: str, *args: Any) -> Any:
        got = read_file(root, rel, *args)
        reads.append(rel)
        return got

    def spy_plain(root: Path, rel: str, *args: Any) -> Any:
        got = read_plain(root, rel, *args)
        if got is not None:
            reads.append(rel)
        return got

    monkeypatch.setattr(dirfd, "read_file", spy_file)
    monkeypatch.setattr(dirfd, "read_plain", spy_plain)
    return reads
