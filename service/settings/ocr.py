"""The `[ocr]` section: reading the text in images and scanned PDFs (ocr_attachment, ocr_bulk).

The engine is RapidOCR's PP-OCRv4 models as the `rapidocr-onnxruntime` wheel ships them, run by
onnxruntime in one worker process (`service.ocr.engine`); nothing is downloaded at run time.
Every bound below is checked before the expensive step it guards: the file's size before it is
read, an image's pixel count from its header before it is decoded, a PDF's page count before a
page is rendered, and the time of one image or page by the worker being stopped when it runs
past it.
"""

from __future__ import annotations

from pydantic import Field

from service.settings.base import Section


class OcrSettings(Section):
    enabled: bool = Field(
        default=True,
        description="Serve ocr_attachment and ocr_bulk (false: both answer mode_unavailable; the text already "
        "read stays indexed).",
    )
    max_file_bytes: int = Field(
        default=50 * 1024 * 1024,
        ge=1024,
        description="Largest image or PDF file read (checked on the file's size before it is read).",
    )
    max_pixels: int = Field(
        default=40_000_000,
        ge=100_000,
        description="Largest image (width x height, from its header, before decoding) or rendered PDF page; "
        "larger is compute_budget_exceeded (decompression bombs never decode).",
    )
    max_side: int = Field(
        default=2000,
        ge=256,
        le=8000,
        description="Longest side the recognizer sees: a larger image is scaled down to it first.",
    )
    max_pdf_pages: int = Field(
        default=20, ge=1, le=1000, description="Pages of a PDF read (the first ones); the answer says when more exist."
    )
    pdf_dpi: int = Field(default=200, ge=72, le=400, description="Resolution a PDF page is rendered at.")
    timeout_s: float = Field(
        default=60.0,
        gt=0,
        le=600,
        description="Time one image or PDF page may take; past it the worker is stopped and the file is "
        "compute_budget_exceeded.",
    )
    threads: int = Field(
        default=2, ge=1, le=16, description="Threads the recognizer's onnxruntime sessions use (intra-op)."
    )
    idle_s: float = Field(
        default=300.0,
        ge=0,
        description="The worker process is stopped after this long without work (its ~200 MB come back); "
        "the next image starts it again (~1 s).",
    )
