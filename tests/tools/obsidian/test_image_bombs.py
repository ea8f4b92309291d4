"""read_attachment on decompression bombs, through the chain: an image whose header declares
more pixels than `[limits] max_image_pixels` is refused before decoding (a 121-million-pixel PNG
of zeros, a PNG that declares 900 million), a large JPEG is decoded at a reduced scale, and the
process's peak memory does not move."""

from __future__ import annotations

import io
import resource
import struct
import zlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import Harness, started


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def zero_png(width: int, height: int, *, rows: int | None = None) -> bytes:
    """An 8-bit greyscale PNG of zeros, compressed row by row (never held whole in memory);
    `rows` < height leaves the data short (a header that declares more than the file holds)."""
    comp = zlib.compressobj(9)
    line = bytes(width + 1)  # filter byte + pixels
    data = b"".join(comp.compress(line) for _ in range(height if rows is None else rows)) + comp.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def jpeg(width: int, height: int) -> bytes:
    buf = io.BytesIO()
    Image.new("L", (width, height), 90).save(buf, format="JPEG", quality=50)
    return buf.getvalue()


@pytest.fixture
async def vg(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    files: dict[str, str | bytes] = {
        "zeros.png": zero_png(11_000, 11_000),
        "declares.png": zero_png(30_000, 30_000, rows=2),
        "wide.jpg": jpeg(9_000, 5_000),
        "A.md": "",
    }
    async with started(make_vault(files)) as harness:
        yield harness


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def test_an_image_declaring_too_many_pixels_is_refused_before_decoding(vg: Harness) -> None:
    assert (vg.root / "zeros.png").stat().st_size < 600_000
    before = _peak_mb()
    err = await vg.err("read_attachment", "compute_budget_exceeded", path="zeros.png")
    assert err["details"] | {"reason": None} == {
        "limit": "pixels",
        "max_image_pixels": 40_000_000,
        "width": 11_000,
        "height": 11_000,
        "reason": None,
    }
    err = await vg.err("read_attachment", "compute_budget_exceeded", path="declares.png")
    assert err["details"]["limit"] == "pixels"
    assert _peak_mb() - before < 100  # decoding the first alone takes 121 MB, the old path passed 2 GB


async def test_a_large_jpeg_is_decoded_at_a_reduced_scale(vg: Harness) -> None:
    out = await vg.ok("read_attachment", path="wide.jpg", max_dimension=1024)
    info = out["image"]
    assert (info["width"], info["height"]) == (9_000, 5_000)
    assert info["resized"] is True and max(info["sent_width"], info["sent_height"]) <= 1024


async def test_the_pixel_budget_is_configurable(make_vault: Callable[..., Path]) -> None:
    files: dict[str, str | bytes] = {"mid.png": zero_png(2_000, 1_000), "A.md": ""}
    async with started(make_vault(files), limits={"max_image_pixels": 1_000_000}) as vg:
        err = await vg.err("read_attachment", "compute_budget_exceeded", path="mid.png")
        assert err["details"]["max_image_pixels"] == 1_000_000
    async with started(make_vault(files)) as vg:
        assert (await vg.ok("read_attachment", path="mid.png"))["image"]["width"] == 2_000
