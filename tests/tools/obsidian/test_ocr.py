"""ocr_attachment and ocr_bulk through the dispatch chain, on images and scanned PDFs drawn with
Pillow: the text read, the content cache, the text indexed so search_text finds the note that
embeds the image (and search_regex still matches only the note's own lines), PDFs page by page
within `max_pdf_pages`; the background job with its progress, unchanged files left out, failures
named, status and cancel; every bound refused with a structured error (decompression bombs from
the header, before the worker does anything; time by stopping the worker)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.ocr import engine as ocr_engine
from tests.conftest import Harness, started
from tests.polling import until
from tests.tools.obsidian.ocr_images import needs_engine, noise_png, ocr_held, scanned_pdf, text_png
from tests.tools.obsidian.test_image_bombs import zero_png

INVOICE = "Quarterly invoice 4711"
pytestmark = needs_engine
# [ocr] timeout_s (per image, 60 s by default): the worker runs at nice 10, so at load ~12 here it
# got too little CPU to start and read one small PNG within it (compute_budget_exceeded, in the
# first two tests below). Tests that read text are about the text, not the reading's speed.
UNDER_LOAD = 600.0


def _ocr(vg: Harness) -> Any:
    ocr = vg.app.services.ocr
    assert ocr is not None
    return ocr


@pytest.mark.covers("ocr_attachment", "success")
@pytest.mark.timeout(600)  # real readings by a nice-10 worker: 154 s for the first test at load ~10
async def test_ocr_attachment_reads_an_image_caches_it_and_search_finds_the_embedding_note(
    make_vault: Callable[..., Path],
) -> None:
    files: dict[str, str | bytes] = {
        "Trips/Expenses.md": "# Expenses\n\nThe receipt:\n\n![[scan.png]]\n",
        "Other.md": "# Other\n\nNothing about money.\n",
        "assets/scan.png": text_png(INVOICE),
        "assets/copy.png": text_png(INVOICE),
        "Scans/letter.pdf": scanned_pdf("Dear customer", "Payment reminder", "Third page"),
        "Letters.md": "![[letter.pdf]]\n",
    }
    async with started(make_vault(files), ocr={"max_pdf_pages": 2, "timeout_s": UNDER_LOAD}) as vg:
        await vg.indexed()
        assert (await vg.ok("search_text", query="quarterly invoice"))["items"] == []
        assert (await vg.ok("server_health"))["ocr"].endswith("worker not started")
        out = await vg.ok("ocr_attachment", path="scan.png")  # a bare name, as an embed names it
        assert out["path"] == "assets/scan.png" and out["kind"] == "image" and not out["cached"]
        assert out["text"] == INVOICE
        [line] = out["lines"]
        assert line["confidence"] > 0.9 and line["page"] is None
        x0, y0, x1, y1 = line["box"]
        assert 0 <= x0 < x1 <= 640 and 0 <= y0 < y1 <= 120
        assert [n["path"] for n in out["embedded_by"]] == ["Trips/Expenses.md"]
        health = (await vg.ok("server_health"))["ocr"]
        assert health.startswith("ready: rapidocr-onnxruntime") and health.endswith("worker running")

        again = await vg.ok("ocr_attachment", path="assets/scan.png")
        assert again["cached"] and again["text"] == INVOICE and again["etag"] == out["etag"]
        copy = await vg.ok("ocr_attachment", path="assets/copy.png")  # same bytes: the cache answers
        assert copy["cached"]

        hits = await vg.ok("search_text", query="quarterly invoice")
        assert [h["path"] for h in hits["items"]] == ["Trips/Expenses.md"]
        assert "Quarterly" in hits["items"][0]["snippet"]
        regex = await vg.ok("search_regex", pattern="Quarterly")
        assert regex["items"] == []  # the note's own lines only: the image's text is no line of it

        # An edit re-indexes the note: the image's text stays with it.
        await vg.ok("append_note", path="Trips/Expenses.md", content="\nPaid in March.\n")
        await vg.settled()
        hits = await vg.ok("search_text", query="quarterly invoice")
        assert [h["path"] for h in hits["items"]] == ["Trips/Expenses.md"]

        pdf = await vg.ok("ocr_attachment", path="Scans/letter.pdf")
        assert pdf["kind"] == "pdf" and pdf["pages"] == 3 and pdf["pages_read"] == 2
        assert [ln["page"] for ln in pdf["lines"]] == [1, 2]
        assert "customer" in pdf["text"] and "Payment reminder" in pdf["text"]
        assert "Third" not in pdf["text"]
        found = await vg.ok("search_text", query="payment reminder")
        assert [h["path"] for h in found["items"]] == ["Letters.md"]


@pytest.mark.covers("ocr_attachment", "failure")
async def test_ocr_attachment_refuses_bombs_corrupt_oversized_and_non_image_files_with_structured_errors(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    files: dict[str, str | bytes] = {
        "declares.png": zero_png(30_000, 30_000, rows=2),  # 900 million pixels declared in a tiny file
        "broken.png": text_png("cut short")[:60],
        "big.png": noise_png(300, 300),  # noise: ~90 KB that no compression shrinks
        "Note.md": "# Note\n",
        "notes.txt": "plain text\n",
    }
    async with started(make_vault(files), ocr={"max_file_bytes": 40_000}) as vg:
        await vg.indexed()
        assert (vg.root / "big.png").stat().st_size > 40_000
        err = await vg.err("ocr_attachment", "compute_budget_exceeded", path="declares.png")
        assert err["details"]["limit"] == "pixels" and err["details"]["path"] == "declares.png"
        err = await vg.err("ocr_attachment", "compute_budget_exceeded", path="big.png")
        assert err["details"]["limit"] == "bytes"
        err = await vg.err("ocr_attachment", "validation_error", path="broken.png")
        assert err["details"]["reason"] == "undecodable_image"
        err = await vg.err("ocr_attachment", "validation_error", path="notes.txt")
        assert err["details"]["reason"] == "not_an_image"
        await vg.err("ocr_attachment", "validation_error", path="Note.md")
        await vg.err("ocr_attachment", "note_not_found", path="nowhere.png")
        await vg.err("ocr_attachment", "path_invalid", path="../outside.png")
        assert _ocr(vg).engine.started == 0  # every refusal came before the worker was needed

        monkeypatch.setattr(ocr_engine, "available", lambda: False)
        err = await vg.err("ocr_attachment", "mode_unavailable", path="declares.png")
        assert err["details"] == {"reason": "engine_missing", "package": "rapidocr-onnxruntime"}
        assert (await vg.ok("server_health"))["ocr"] == "unavailable: rapidocr-onnxruntime is not installed"


@pytest.mark.covers("ocr_attachment", "failure")
async def test_an_image_past_the_time_bound_stops_the_worker_and_is_compute_budget_exceeded(
    make_vault: Callable[..., Path],
) -> None:
    files: dict[str, str | bytes] = {"slow.png": text_png(INVOICE)}
    async with started(make_vault(files), ocr={"timeout_s": 0.05}) as vg:
        err = await vg.err("ocr_attachment", "compute_budget_exceeded", path="slow.png")
        assert err["details"]["limit"] == "seconds"
        engine = _ocr(vg).engine
        assert engine._pool is None and engine.started == 1  # killed, not left running
        await vg.err("ocr_attachment", "compute_budget_exceeded", path="slow.png")
        assert engine.started == 2  # the next file gets a new worker


@pytest.mark.covers("ocr_bulk", "success")
@pytest.mark.timeout(600)  # real readings by a nice-10 worker: 154 s for the first test at load ~10
async def test_ocr_bulk_reads_a_folder_in_the_background_and_leaves_unchanged_files_out_next_time(
    make_vault: Callable[..., Path],
) -> None:
    files: dict[str, str | bytes] = {
        "scans/receipt.png": text_png("Hardware store receipt"),
        "scans/deep/ticket.png": text_png("Museum ticket 2026"),
        "scans/corrupt.jpg": b"\xff\xd8\xff\xe0 not really a jpeg",
        "scans/readme.txt": "not an image\n",
        "elsewhere.png": text_png("Not in the folder"),
        "Museum.md": "# Museum\n\n![[ticket.png]]\n",
    }
    async with started(make_vault(files), ocr={"timeout_s": UNDER_LOAD}) as vg:
        await vg.indexed()
        assert (await vg.ok("ocr_bulk", action="status"))["job"] is None
        out = await vg.ok("ocr_bulk", folder="scans", wait=True)
        job = out["job"]
        assert job["status"] == "done" and job["folder"] == "scans" and not out["already_running"]
        assert (job["total"], job["done"], job["read"], job["failed"]) == (3, 3, 2, 1)
        assert job["failures"] == [{"path": "scans/corrupt.jpg", "code": "validation_error"}]
        hits = await vg.ok("search_text", query="museum ticket")
        assert [h["path"] for h in hits["items"]] == ["Museum.md"]
        assert (await vg.ok("search_text", query="folder"))["items"] == []  # elsewhere.png was not read

        status = await vg.ok("ocr_bulk", action="status")
        assert status["job"]["id"] == job["id"] and status["job"]["status"] == "done"
        again = (await vg.ok("ocr_bulk", folder="scans", wait=True))["job"]
        assert (again["total"], again["unchanged"]) == (1, 2)  # the failed one is tried again
        (vg.root / "scans/receipt.png").unlink()
        (vg.root / "scans/deep/ticket.png").write_bytes(text_png("Concert ticket 2027"))
        third = (await vg.ok("ocr_bulk", folder="scans", wait=True))["job"]
        assert (third["total"], third["read"]) == (2, 1)
        hits = await vg.ok("search_text", query="concert ticket")
        assert [h["path"] for h in hits["items"]] == ["Museum.md"]
        assert (await vg.ok("search_text", query="2026"))["items"] == []  # the old text left the note


@pytest.mark.covers("ocr_bulk", "success")
async def test_ocr_bulk_shows_a_running_job_joins_it_and_cancels_it(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The worker holds every image until the test ends (`ocr_held`): the job is running at the
    second call and at the cancel however fast the machine reads, and the cancel lands while the
    worker has the first file (so stopping the job stops the worker)."""
    files: dict[str, str | bytes] = {f"img/{i}.png": text_png(f"Page number {i}") for i in range(4)}
    ocr_held(monkeypatch, tmp_path / "hold", *(f"{i}.png" for i in range(4)))
    async with started(make_vault(files), ocr={"timeout_s": UNDER_LOAD}) as vg:  # the held read goes on
        await vg.indexed()
        started_job = await vg.ok("ocr_bulk", wait=False)
        job = started_job["job"]
        assert job["status"] == "running" and job["total"] == 4
        engine = _ocr(vg).engine
        await until(lambda: engine._pool is not None, "the worker started on the first image")
        joined = await vg.ok("ocr_bulk", wait=False)
        assert joined["already_running"] and joined["job"]["id"] == job["id"]
        cancelled = await vg.ok("ocr_bulk", action="cancel")
        assert cancelled["job"]["id"] == job["id"] and cancelled["job"]["status"] == "cancelled"
        assert cancelled["job"]["done"] == 0 and cancelled["job"]["finished_at"] is not None
        assert engine._pool is None  # the worker was stopped with the job
        assert (await vg.ok("ocr_bulk", action="status"))["job"]["status"] == "cancelled"


@pytest.mark.covers("ocr_bulk", "failure")
async def test_ocr_bulk_names_a_missing_folder_and_a_missing_engine(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with started(make_vault({"a.png": text_png("x")})) as vg:
        err = await vg.err("ocr_bulk", "note_not_found", folder="no such folder")
        assert err["details"]["field"] == "folder"
        monkeypatch.setattr(ocr_engine, "available", lambda: False)
        err = await vg.err("ocr_bulk", "mode_unavailable")
        assert err["details"]["reason"] == "engine_missing"
    async with started(make_vault({"b.png": text_png("x")}, name="off"), ocr={"enabled": False}) as vg:
        err = await vg.err("ocr_bulk", "mode_unavailable")
        assert err["details"]["reason"] == "disabled"
