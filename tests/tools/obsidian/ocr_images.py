"""Images and scanned PDFs for the OCR tests, drawn with Pillow (no binary fixtures): black text
on white in DejaVu Sans (Pillow's own font where DejaVu is missing), read reliably at this size;
`ocr_held` holds chosen files in the worker process, so a test sees a bulk job still running
however fast the machine reads."""

from __future__ import annotations

import functools
import io
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw, ImageFont

from service.ocr import worker
from service.ocr.engine import available

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
# The recognizer's wheel needs Python < 3.13; where it is absent the tools answer mode_unavailable
# (tested on its own) and the tests that read text have nothing to read with.
needs_engine = pytest.mark.skipif(not available(), reason="rapidocr-onnxruntime is not installed (Python 3.13+)")


def text_image(text: str, *, size: tuple[int, int] = (640, 120), mode: str = "RGB") -> Image.Image:
    try:
        font: ImageFont.FreeTypeFont | ImageFont.ImageFont = ImageFont.truetype(FONT, 32)
    except OSError:  # no DejaVu here: Pillow's own scalable font
        font = ImageFont.load_default(size=32)
    img = Image.new(mode, size, "white" if mode == "RGB" else (0, 0, 0, 0))
    ImageDraw.Draw(img).text((20, 30), text, font=font, fill="black")
    return img


def text_png(text: str, **kwargs: object) -> bytes:
    buf = io.BytesIO()
    text_image(text, **kwargs).save(buf, format="PNG")  # type: ignore[arg-type]
    return buf.getvalue()


def scanned_pdf(*pages: str) -> bytes:
    """A PDF whose pages are pictures of text (as a scanner makes them): no text layer."""
    images = [text_image(text, size=(1000, 400)) for text in pages]
    buf = io.BytesIO()
    images[0].save(buf, format="PDF", save_all=True, append_images=images[1:], resolution=200)
    return buf.getvalue()


def noise_png(width: int, height: int) -> bytes:
    """Grey noise (seeded): a PNG about width x height bytes, whatever the compression."""
    pixels = random.Random(7).randbytes(width * height)
    buf = io.BytesIO()
    Image.frombytes("L", (width, height), pixels).save(buf, format="PNG")
    return buf.getvalue()


_READ_FILE = worker.read_file  # the real one: in the worker process too, which imports this module afresh


def held_read_file(gate: str, held: frozenset[str], root: str, rel: str, kind: str, index: int, bounds: Any) -> Any:
    """`worker.read_file`, except that a file whose name is in `held` waits while the file `gate`
    exists (for 600 s at most): it runs in the OCR worker process, so a bulk job is still running,
    in the middle of that file, for as long as the test wants (its cancel kills the worker)."""
    deadline = time.monotonic() + 600
    while Path(rel).name in held and os.path.exists(gate) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _READ_FILE(root, rel, kind, index, bounds)


def ocr_held(monkeypatch: pytest.MonkeyPatch, gate: Path, *names: str) -> None:
    """From now on the OCR worker holds the files `names` (by file name) before reading them, while
    `gate` exists (it is written here; the server's stop kills a worker holding one). Call it
    before the worker starts (its first read)."""
    gate.write_text("held\n", encoding="utf-8")
    monkeypatch.setattr(worker, "read_file", functools.partial(held_read_file, str(gate), frozenset(names)))
