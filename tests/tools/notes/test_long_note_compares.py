"""An `expected_etag` is compared with a note's etag hashed a chunk at a time
(`service.vault.etags.etag_of_stream`): a note over `[limits] max_note_bytes` is never read whole
to say it exists or to compare it (a 600 MB note: 0.7 s and ~600 MB more peak memory per
compare, J1 s87). The etag is byte-identical to the whole-read one for every length. Overwriting
such a note with bulk_create_notes is refused (`compute_budget_exceeded`, nothing written): its
bytes would be read whole for the call's undo."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from service.vault import dirfd, restore
from service.vault.etags import CHUNK, etag_of, etag_of_stream
from tests.conftest import started
from tests.whole_reads import spy

LIMIT = 4096
LONG = "# Long\n\n" + "".join(f"entry {i}: plain text, no link\n" for i in range(400))  # ~11 KB
LIMITS = {"max_note_bytes": LIMIT, "max_indexed_note_chars": 2048}
SIZES = [0, 1, 4095, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7]


@pytest.mark.parametrize("size", SIZES)
def test_the_streamed_etag_is_the_whole_read_etag(size: int) -> None:
    data = os.urandom(size)
    assert etag_of_stream(io.BytesIO(data)) == etag_of(data)


async def test_a_vault_files_etag_is_the_one_it_had(make_vault: Callable[..., Path]) -> None:
    files = {f"n{size}.md": os.urandom(size) for size in SIZES} | {"bom.md": "\ufeff# é\r\n".encode("utf-16")}
    async with started(make_vault(files), index={"watch": False}) as vg:
        vault = next(iter(vg.app.vaults.values()))
        for rel in files:
            old = etag_of(dirfd.read_bytes(vg.root, rel))  # what current_etag answered before
            assert vault.files.current_etag(vault.paths.resolve(rel)) == old, rel
            assert restore.current_etag(vault.files, rel) == old, rel
            assert dirfd.etag_at(vg.root, rel) == old, rel  # the one function both answer with


async def test_bulk_and_write_compare_a_long_notes_etag_without_reading_it_whole(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Long.md": LONG, "Home.md": "# Home\n"})
    etag = etag_of(LONG.encode())
    async with started(root, limits=LIMITS, index={"watch": False}) as vg:
        reads = spy(monkeypatch)
        note = {"path": "Long", "content": "# new\n"}
        await vg.err("bulk_create_notes", "already_exists", notes=[{**note, "expected_etag": etag}])
        stale = await vg.err(
            "bulk_create_notes", "conflict", notes=[{**note, "expected_etag": "0" * 32}], overwrite=True
        )
        assert stale["details"]["current_etag"] == etag
        assert "Long.md" not in reads, reads  # said to exist, compared: never read whole
        err = await vg.err(
            "bulk_create_notes", "compute_budget_exceeded", notes=[{**note, "expected_etag": etag}], overwrite=True
        )
        assert err["details"] == {
            "path": "Long.md",
            "size": len(LONG.encode()),
            "limit": "note_bytes",
            "max_note_bytes": LIMIT,
        }
        assert vg.read("Long.md") == LONG  # nothing written
        assert (
            await vg.err("write_note", "conflict", path="Long", content="x", mode="overwrite", expected_etag="1" * 32)
        )["details"]["current_etag"] == etag
        await vg.ok("write_note", path="Long", content="# short now\n", mode="overwrite", expected_etag=etag)
        assert vg.read("Long.md") == "# short now\n"
        assert "Long.md" not in reads, reads
