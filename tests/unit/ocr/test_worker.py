"""The OCR worker's bounds and the text of embedded images, as plain functions (no worker process):
a declared decompression bomb and a file cut short are refused from the header; a PDF page that
declares a huge media box renders within `max_side`; a recognizer that cannot load (OpenCV without
libGL) is mode_unavailable, not the file's fault; a note's own text is kept apart from its images'."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from service.errors import ComputeBudgetExceeded, ModeUnavailable, ValidationFailed
from service.ocr import attached, worker
from service.ocr.engine import failure_error
from tests.tools.obsidian.ocr_images import text_png
from tests.tools.obsidian.test_image_bombs import zero_png

BOUNDS = worker.Bounds(max_bytes=10_000_000, max_pixels=4_000_000, max_side=1000, dpi=200)


def test_the_header_refuses_a_bomb_and_a_cut_file_and_passes_a_real_image() -> None:
    bomb = worker.probe_image(zero_png(30_000, 30_000, rows=2), BOUNDS)
    assert bomb is not None and bomb.code == "too_many_pixels"
    assert isinstance(failure_error(bomb, "b.png"), ComputeBudgetExceeded)
    over = worker.probe_image(zero_png(3000, 2000), BOUNDS)  # 6 MP: past this 4 MP bound, under Pillow's
    assert over is not None and over.details["width"] == 3000
    cut = worker.probe_image(text_png("cut")[:60], BOUNDS)
    assert cut is not None and cut.code == "undecodable_image"
    assert isinstance(failure_error(cut, "c.png"), ValidationFailed)
    junk = worker.probe_image(b"not an image at all", BOUNDS)
    assert junk is not None and junk.code == "undecodable_image" and " object at 0x" not in junk.message
    assert worker.probe_image(text_png("fine"), BOUNDS) is None


def test_a_pdf_page_with_a_huge_media_box_renders_within_max_side() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (200, 100), "white").save(buf, format="PDF", resolution=1)  # a 200 x 100 inch page
    rendered = worker.render_page(buf.getvalue(), 0, BOUNDS)
    image, width, height = rendered
    assert max(width, height) <= BOUNDS.max_side and width * height <= BOUNDS.max_pixels
    missing = worker.render_page(buf.getvalue(), 3, BOUNDS)
    assert isinstance(missing, worker.Failure) and missing.code == "no_page"
    broken = worker.render_page(b"%PDF-1.7 nothing else", 0, BOUNDS)
    assert isinstance(broken, worker.Failure) and broken.code == "unreadable_pdf"


def test_a_recognizer_that_cannot_load_is_mode_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worker, "_load_error", "ImportError: libGL.so.1: cannot open shared object file")
    failed = worker.read_file("/nonexistent", "a.png", "image", 0, BOUNDS)
    assert isinstance(failed, worker.Failure) and failed.code == "engine_failed"
    error = failure_error(failed, "a.png")
    assert isinstance(error, ModeUnavailable) and error.details["reason"] == "engine_failed"


def test_a_notes_own_text_stays_apart_from_its_images_text() -> None:
    body = "# Trip\n\n![[r.png]]\n"
    with_text = attached.with_texts(body, ["Quarterly invoice", "  "])
    assert with_text.startswith(body) and with_text.endswith("Quarterly invoice")
    assert attached.own_text(with_text) == body
    assert attached.with_texts(with_text, ["Other text"]) == body + attached.MARK + "Other text"
    assert attached.with_texts(with_text, []) == body
    links = [
        ("r.png", "a/r.png", None, None, 1, "wiki", 3),
        ("d.pdf", "d.pdf", None, None, 1, "wiki", 4),
        ("n", "n.md", None, None, 1, "wiki", 5),  # an embedded note: not an image
        ("s.png", "s.png", None, None, 0, "wiki", 6),  # a plain link: not embedded
        ("x.svg", "x.svg", None, None, 1, "wiki", 7),  # an SVG is text, not pixels
        ("gone.png", None, None, None, 1, "wiki", 8),  # unresolved
    ]
    assert attached.embedded_targets(links) == ["a/r.png", "d.pdf"]
