"""obsidian domain, reading one attachment: read_attachment.

What comes back depends on the kind (`service.obsidian.attachments`): an image is sent as MCP
image content (base64 with its MIME type, after the text block), scaled down with Pillow until
it fits both `max_dimension` and the response budget (`governor.max_response_bytes`, less room
for the structured part) — past that, `overflow` with the sizes, and nothing is sent. An image
whose header declares more than `[limits] max_image_pixels` is never decoded at full size
(`compute_budget_exceeded`; a JPEG is decoded at a reduced scale when that fits). SVG and
other text-like files come back as `text` (cut at `max_chars`); a PDF as its page count and
document metadata, plus the text of its first pages when pypdf extracts it; anything else
(audio, video, binaries) as metadata only. `embedded_by` lists the notes that link to it.
Touches: the file (read only), index table `links` (read).
"""

from __future__ import annotations

import asyncio
import base64
import io
import warnings
from typing import Any

import mcp_types as types
from pydantic import Field, PrivateAttr

from service.budget import DEFAULT_LIMITS
from service.errors import ComputeBudgetExceeded, Overflow, ValidationFailed
from service.markdown.parse import note_title
from service.obsidian import attachments as at
from service.tools.context import ToolContext, link_target
from service.tools.models import ToolInput, ToolOutput
from service.tools.obsidian.attachments import Linker, linkers
from service.tools.spec import ToolSpec

STRUCTURE_ROOM = 16 * 1024  # bytes left for the structured result and the text block (at most a quarter)
MIN_DIMENSION = 32
RASTER = {"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/avif"}


class ReadAttachmentIn(ToolInput):
    path: str = Field(
        description="The file (not a note: read_note reads notes): its vault path, or its name as an embed "
        "names it ('cover.jpg', '[[Books.base]]'), found anywhere in the vault."
    )
    max_dimension: int = Field(
        default=1568, ge=MIN_DIMENSION, le=8192, description="Images: longest side sent, in pixels."
    )
    max_chars: int = Field(default=100_000, ge=1, le=1_000_000, description="Text and PDF text: at most this much.")
    pdf_pages: int = Field(default=20, ge=0, le=500, description="PDF: extract the text of this many first pages.")


class ImageInfo(ToolOutput):
    width: int = Field(description="Width of the file's image, in pixels.")
    height: int = Field(description="Height in pixels.")
    sent_width: int = Field(description="Width of the image sent.")
    sent_height: int = Field(description="Height of the image sent.")
    sent_mime: str = Field(description="MIME type of the image sent.")
    sent_bytes: int = Field(description="Size of the image sent (before base64).")
    resized: bool = Field(description="Whether it was scaled down or re-encoded to fit.")


class PdfInfo(ToolOutput):
    pages: int = Field(description="Page count.")
    metadata: dict[str, str] = Field(description="Document information (Title, Author, ...).")
    text_pages: int = Field(description="How many pages the text comes from.")


class AttachmentOut(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="The file name less its extension, as Obsidian's basename ('photo.png' is 'photo').")
    obsidian_url: str = Field(description="obsidian://open URL of the file.")
    kind: str = Field(description="image, audio, video, pdf, canvas, base, text or other.")
    mime: str = Field(description="MIME type by extension.")
    size: int = Field(description="Size in bytes.")
    etag: str = Field(description="Content hash of the file.")
    text: str | None = Field(default=None, description="The text of a text-like file, or a PDF's extracted text.")
    truncated: bool = Field(default=False, description="Whether text was cut at max_chars.")
    image: ImageInfo | None = Field(default=None, description="Images: sizes; the image is the image content block.")
    pdf: PdfInfo | None = Field(default=None, description="PDFs: page count and metadata.")
    embedded_by: list[Linker] = Field(description="Notes that link to or embed it (that you may read).")
    _image: tuple[str, str] | None = PrivateAttr(default=None)  # (base64, mime)

    def content_blocks(self) -> list[Any]:
        if self._image is None:
            return []
        data, mime = self._image
        return [types.ImageContent(type="image", data=data, mime_type=mime)]


def _encode(img: Any, mime: str) -> tuple[bytes, str]:
    buf = io.BytesIO()
    if mime == "image/png" or img.mode in ("RGBA", "LA", "P"):
        img.save(buf, format="PNG", optimize=True)
        return buf.getvalue(), "image/png"
    img.convert("RGB").save(buf, format="JPEG", quality=85)
    return buf.getvalue(), "image/jpeg"


def fit_image(
    data: bytes, mime: str, max_dimension: int, budget: int, max_pixels: int = DEFAULT_LIMITS.max_image_pixels
) -> tuple[bytes, str, ImageInfo]:
    """The image as sent: unchanged when it fits, else scaled (halving the side) until it does.

    Bounded before decoding: the header's size is read first; a JPEG larger than `max_pixels`
    is decoded at a reduced scale (1/2 .. 1/8, Pillow's draft mode) when that brings it under,
    and anything still larger is refused (`compute_budget_exceeded`, limit `pixels`), as are
    Pillow's own decompression-bomb errors — a 459 KB PNG can declare 121 million pixels."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # The server's own bound (`max_pixels`) decides; Pillow's warning would only log.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as probe:
                width, height = probe.size
                if width * height > max_pixels and probe.format == "JPEG":
                    probe.draft("RGB", (max_dimension, max_dimension))
                if probe.size[0] * probe.size[1] > max_pixels:
                    raise _too_many_pixels(width, height, max_pixels)
                if max(width, height) <= max_dimension and len(data) * 4 // 3 <= budget:
                    probe.load()  # the whole file decodes: not a truncated or corrupt image
                    info = ImageInfo(width=width, height=height, sent_width=width, sent_height=height,
                                     sent_mime=mime, sent_bytes=len(data), resized=False)  # fmt: skip
                    return data, mime, info
                # `is_animated` reads up to the second frame (`n_frames` reads every frame header)
                img = probe.convert("RGBA") if getattr(probe, "is_animated", False) else probe
                img.thumbnail((max_dimension, max_dimension))  # in place: no full-size copy is kept
                return _shrink(img, data, mime, width, height, max_dimension, budget)
    except Image.DecompressionBombError as exc:
        raise _too_many_pixels(None, None, max_pixels, str(exc)) from None
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise ValidationFailed(
            f"cannot decode the image: {_why(exc)}",
            details={"reason": "undecodable_image", "mime": mime},
            hint="The file is no image this server decodes (damaged, cut short, or named with another format's "
            "extension): retrying will not help. Look at it in Obsidian (open_in_obsidian) or replace the file; "
            "list_attachments gives its size and the notes that embed it.",
        ) from None


def _why(exc: Exception) -> str:
    """What went wrong, without Pillow's `<_io.BytesIO object at 0x…>` (an address, not a reason)."""
    from PIL import UnidentifiedImageError

    return "not an image format it reads" if isinstance(exc, UnidentifiedImageError) else str(exc)


def _shrink(
    img: Any, data: bytes, mime: str, width: int, height: int, max_dimension: int, budget: int
) -> tuple[bytes, str, ImageInfo]:
    side = min(max_dimension, max(width, height))
    while side >= MIN_DIMENSION:
        scaled = img.copy()
        scaled.thumbnail((side, side))
        out, sent = _encode(scaled, mime)
        if len(out) * 4 // 3 <= budget:
            info = ImageInfo(width=width, height=height, sent_width=scaled.width, sent_height=scaled.height,
                             sent_mime=sent, sent_bytes=len(out), resized=True)  # fmt: skip
            return out, sent, info
        side = side * 2 // 3
    raise Overflow(
        f"the image does not fit the {budget}-byte response budget even at {MIN_DIMENSION}px",
        details={"bytes": len(data), "limit": budget, "tool": "read_attachment"},
        hint="Raise governor.max_response_bytes or read a smaller image.",
    )


def _too_many_pixels(width: int | None, height: int | None, max_pixels: int, reason: str = "") -> ComputeBudgetExceeded:
    details: dict[str, Any] = {"limit": "pixels", "max_image_pixels": max_pixels}
    if width is not None and height is not None:
        details |= {"width": width, "height": height}
    if reason:
        details["reason"] = reason
    size = f" ({width}x{height})" if width is not None else ""
    return ComputeBudgetExceeded(
        f"the image{size} is larger than the server decodes ([limits] max_image_pixels = {max_pixels})",
        details=details,
        hint="Open it in Obsidian, or scale it down in the vault; the file's metadata is in list_attachments.",
    )


def _pdf(data: bytes, pages: int, max_chars: int) -> tuple[PdfInfo, str | None]:
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(io.BytesIO(data))
        meta = {str(k).lstrip("/"): str(v) for k, v in (reader.metadata or {}).items() if v is not None}
        count = len(reader.pages)
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise ValidationFailed(f"cannot read the PDF: {exc}", details={"reason": "unreadable_pdf"}) from None
    parts: list[str] = []
    used = 0
    for page in reader.pages[: min(pages, count)]:
        try:
            parts.append(page.extract_text() or "")
        except (PyPdfError, ValueError, KeyError, TypeError):
            parts.append("")
        used += 1
        if sum(len(p) for p in parts) >= max_chars:
            break
    text = "\n\n".join(parts).strip()
    return PdfInfo(pages=count, metadata=meta, text_pages=used), (text or None)


def _as_text(data: bytes, kind: str) -> str | None:
    if kind not in ("text", "canvas", "base", "other") and not data.startswith(b"<"):
        return None
    return at.text_of(data)


async def read_attachment(ctx: ToolContext, args: ReadAttachmentIn) -> AttachmentOut:
    named = ctx.resolve(link_target(args.path), "read")
    if named.rel.lower().endswith(".md"):
        raise ValidationFailed(
            f"{named.rel!r} is a note", details={"field": "path", "reason": "is_a_note"}, hint="Use read_note."
        )
    # By its name alone too, as a note's `![[cover.jpg]]` names it (and as ocr_attachment finds it).
    vp = await ctx.find_file(args.path, "read")
    data = await asyncio.to_thread(ctx.vault.files.read_bytes, vp)
    kind, mime = at.kind_of(vp.rel), at.mime_of(vp.rel)
    from service.vault.files import etag_of

    out = AttachmentOut(
        path=vp.rel,
        title=note_title(vp.rel),
        obsidian_url=ctx.vault.url(vp.rel),
        kind=kind,
        mime=mime,
        size=len(data),
        etag=etag_of(data),
        embedded_by=(await linkers(ctx, [vp.rel])).get(vp.rel, []),
    )
    text: str | None = None
    if kind == "image" and mime in RASTER:
        limit = ctx.services.settings.governor.max_response_bytes
        budget = limit - min(STRUCTURE_ROOM, limit // 4)
        pixels = ctx.services.settings.limits.max_image_pixels
        sent, sent_mime, info = await asyncio.to_thread(
            fit_image, data, mime, args.max_dimension, max(budget, 0), pixels
        )
        out.image = info
        out._image = (base64.b64encode(sent).decode("ascii"), sent_mime)
    elif kind == "pdf":
        out.pdf, text = await asyncio.to_thread(_pdf, data, args.pdf_pages, args.max_chars)
    else:
        text = _as_text(data, kind if mime != "image/svg+xml" else "text")
    if text is not None:
        out.truncated = len(text) > args.max_chars
        out.text = text[: args.max_chars]
    return out


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="read_attachment",
        domain="obsidian",
        title="Read an attachment",
        description="Read a non-Markdown file: an image as image content (scaled down to fit), text-like files "
        "as text, a PDF as metadata and text, anything else as metadata; with the notes that embed it.",
        input_model=ReadAttachmentIn,
        output_model=AttachmentOut,
        handler=read_attachment,
    ),
)
