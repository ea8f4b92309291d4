"""What runs in the OCR worker process: decoding one image or rendering one PDF page within the
bounds, and recognizing its text with RapidOCR (`rapidocr-onnxruntime`, whose wheel ships the
PP-OCRv4 detection, orientation and recognition models; onnxruntime runs them).

Everything here is a plain function of plain values, so the parent (`service.ocr.engine`) can
stop the process when a page runs past its time. A problem with the file comes back as a
`Failure` (code, message, details), never as an exception to unpickle: the parent turns it into
the service's error. The bounds, each checked before the step it guards:
- a file larger than `max_bytes` is not read;
- an image whose header declares more than `max_pixels` is not decoded (a JPEG is first asked
  for a reduced scale that fits, Pillow's draft mode); Pillow's own decompression-bomb check
  stays on, at the same bound;
- a PDF page is rendered at `dpi` but never past `max_side` pixels on its longest side, so a
  page that declares a huge media box renders small;
- an image larger than `max_side` is scaled down before the recognizer sees it.
The process runs at a lower CPU priority (nice 10), so the server's own calls come first.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

_engine: Any = None
T = TypeVar("T")


@dataclass(frozen=True)
class Bounds:
    max_bytes: int
    max_pixels: int
    max_side: int
    dpi: int


@dataclass(frozen=True)
class Failure:
    code: str  # too_large | too_many_pixels | undecodable_image | unreadable_pdf | no_page | engine_failed
    message: str
    details: dict[str, Any]


# One recognized line: (text, confidence, (x0, y0, x1, y1), page or None).
Line = tuple[str, float, tuple[int, int, int, int], int | None]


@dataclass(frozen=True)
class Page:
    lines: list[Line]
    width: int  # of the image as the file holds it (a PDF page: as rendered)
    height: int


def start(threads: int) -> None:
    """The worker's initializer: ignore Ctrl-C (the server stops the worker itself), step back
    in CPU priority, load the models once."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):  # a platform without nice
        os.nice(10)
    global _load_error
    try:
        engine(threads)
    except Exception as exc:  # noqa: BLE001 - told to the server with every unit, not a dead pool
        _load_error = f"{type(exc).__name__}: {exc}"


_load_error: str | None = None  # why the recognizer could not load in this process (a missing libGL)


def engine(threads: int = 1) -> Any:
    """The recognizer, loaded at the first use in this process (~0.2 s)."""
    global _engine
    if _engine is None:
        from rapidocr_onnxruntime import RapidOCR

        _engine = RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=1)
    return _engine


def _read(root: str, rel: str, bounds: Bounds) -> bytes | Failure:
    """The bytes of the vault file `rel`, opened with no link followed anywhere below `root`
    (`service.vault.dirfd`): a folder swapped for a link to outside since the call checked the
    path is refused, never read through."""
    from service.errors import PathInvalid
    from service.vault import dirfd

    try:
        fd, st = dirfd.open_file(Path(root), rel)
        with os.fdopen(fd, "rb") as fh:
            if st.st_size > bounds.max_bytes:
                return _too_large(st.st_size, bounds)
            data = fh.read(bounds.max_bytes + 1)
    except PathInvalid as exc:
        return Failure("path_invalid", exc.message, dict(exc.details))
    except OSError as exc:
        return Failure("unreadable_file", f"cannot read the file: {exc.strerror or exc}", {})
    if len(data) > bounds.max_bytes:  # grew since it was measured
        return _too_large(len(data), bounds)
    return data


def _too_large(size: int, bounds: Bounds) -> Failure:
    return Failure(
        "too_large",
        f"the file ({size} bytes) is larger than OCR reads ([ocr] max_file_bytes = {bounds.max_bytes})",
        {"limit": "bytes", "bytes": size, "max_file_bytes": bounds.max_bytes},
    )


def probe_image(data: bytes, bounds: Bounds) -> Failure | None:
    """Whether the image can be decoded within the bounds, from its header alone (cheap: the
    server asks before the worker does any work)."""
    # verify(): the file's structure and checksums (a PNG cut short), without decoding
    out = _bounded(data, bounds, lambda img, _w, _h: img.verify())
    return out if isinstance(out, Failure) else None


def decode_image(data: bytes, bounds: Bounds) -> Any:
    """The image as an RGB Pillow image no larger than `max_side`, or a Failure."""

    def decoded(img: Any, width: int, height: int) -> tuple[Any, int, int]:
        img.seek(0)  # an animation: its first frame
        img.load()
        return _on_white(img), width, height

    out = _bounded(data, bounds, decoded)
    if isinstance(out, Failure):
        return out
    rgb, width, height = out
    if max(rgb.size) > bounds.max_side:
        rgb.thumbnail((bounds.max_side, bounds.max_side))
    return rgb, width, height


def _bounded(data: bytes, bounds: Bounds, use: Callable[[Any, int, int], T]) -> T | Failure:
    """`use(image, width, height)` on the opened image once the pixel bound holds (a large JPEG
    drafted down first), or the Failure of an image too large or not decodable."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # The bound below decides; Pillow's warning at half its own limit would only log.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                width, height = img.size
                if width * height > bounds.max_pixels and img.format == "JPEG":
                    img.draft("RGB", (bounds.max_side, bounds.max_side))
                if img.size[0] * img.size[1] > bounds.max_pixels:
                    return _too_many_pixels(width, height, bounds)
                return use(img, width, height)
    except Image.DecompressionBombError as exc:
        return Failure("too_many_pixels", str(exc), {"limit": "pixels", "max_pixels": bounds.max_pixels})
    except (UnidentifiedImageError, OSError, ValueError, EOFError, SyntaxError) as exc:
        why = "not an image format it reads" if isinstance(exc, UnidentifiedImageError) else str(exc)
        return Failure("undecodable_image", f"cannot decode the image: {why}", {"reason": "undecodable_image"})


def _on_white(img: Any) -> Any:
    """RGB, transparency laid on white (black text on a transparent PNG stays readable)."""
    from PIL import Image

    if img.mode in ("RGBA", "LA", "PA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        out = Image.new("RGB", rgba.size, "white")
        out.paste(rgba, mask=rgba.getchannel("A"))
        return out
    return img.convert("RGB")


def _too_many_pixels(width: int, height: int, bounds: Bounds) -> Failure:
    return Failure(
        "too_many_pixels",
        f"the image ({width}x{height}) is larger than OCR decodes ([ocr] max_pixels = {bounds.max_pixels})",
        {"limit": "pixels", "width": width, "height": height, "max_pixels": bounds.max_pixels},
    )


def pdf_pages(root: str, rel: str, bounds: Bounds) -> int | Failure:
    """How many pages the PDF `rel` (of the vault at `root`) has."""
    if _load_error is not None:
        return _engine_failed()
    data = _read(root, rel, bounds)
    if isinstance(data, Failure):
        return data
    doc = _pdf(data)
    if isinstance(doc, Failure):
        return doc
    try:
        return len(doc)
    finally:
        doc.close()


def _pdf(data: bytes) -> Any:
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data)
    except (pdfium.PdfiumError, ValueError, OSError) as exc:
        return Failure("unreadable_pdf", f"cannot read the PDF: {exc}", {"reason": "unreadable_pdf"})


def render_page(data: bytes, index: int, bounds: Bounds) -> Any:
    """Page `index` of the PDF as an RGB Pillow image, or a Failure."""
    import pypdfium2 as pdfium

    doc = _pdf(data)
    if isinstance(doc, Failure):
        return doc
    try:
        if not 0 <= index < len(doc):
            return Failure("no_page", f"the PDF has no page {index + 1}", {"page": index + 1, "pages": len(doc)})
        page = doc[index]
        width, height = page.get_size()
        if width <= 0 or height <= 0:
            return Failure("unreadable_pdf", "the page has no size", {"reason": "unreadable_pdf", "page": index + 1})
        scale = min(bounds.dpi / 72, bounds.max_side / max(width, height))
        if width * height * scale * scale > bounds.max_pixels:
            scale = (bounds.max_pixels / (width * height)) ** 0.5
        image = page.render(scale=scale).to_pil().convert("RGB")
        return image, image.width, image.height
    except (pdfium.PdfiumError, ValueError, OSError) as exc:
        return Failure("unreadable_pdf", f"cannot render page {index + 1}: {exc}", {"reason": "unreadable_pdf"})
    finally:
        doc.close()


def recognize_image(image: Any, page: int | None, scale: float = 1.0) -> list[Line]:
    """The text lines of an RGB Pillow image, top to bottom; boxes multiplied by `scale` (back
    to the file's pixels when the image was scaled down)."""
    import numpy as np

    bgr = np.ascontiguousarray(np.asarray(image)[:, :, ::-1])
    found, _elapsed = engine()(bgr)
    lines: list[Line] = []
    for box, text, score in found or ():
        xs = [float(p[0]) * scale for p in box]
        ys = [float(p[1]) * scale for p in box]
        rect = (round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys)))
        lines.append((str(text), round(float(score), 4), rect, page))
    return lines


def read_file(root: str, rel: str, kind: str, index: int, bounds: Bounds) -> Page | Failure:
    """One unit of work: the image `rel` of the vault at `root`, or page `index` (0-based) of the
    PDF there."""
    if _load_error is not None:
        return _engine_failed()
    data = _read(root, rel, bounds)
    if isinstance(data, Failure):
        return data
    loaded = render_page(data, index, bounds) if kind == "pdf" else decode_image(data, bounds)
    if isinstance(loaded, Failure):
        return loaded
    image, width, height = loaded
    scale = width / image.width if image.width else 1.0
    return Page(lines=recognize_image(image, index + 1 if kind == "pdf" else None, scale), width=width, height=height)


def _engine_failed() -> Failure:
    return Failure("engine_failed", f"the OCR engine could not load: {_load_error}", {"reason": "engine_failed"})
