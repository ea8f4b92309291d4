"""OCR end to end: a real server (uvicorn on 127.0.0.1) with the builtin embedding model, the SDK
client over Streamable HTTP. An image drawn with Pillow is read by ocr_attachment (then answered
from the cache), and search_text and search_hybrid find the note that embeds it by what the image
says; ocr_bulk runs as a background job the client polls; a decompression bomb is a structured
error, never an HTTP failure."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.semantic.helpers import model_ready, settled
from tests.tools.obsidian.ocr_images import needs_engine, text_png
from tests.tools.obsidian.test_image_bombs import zero_png

FILES: dict[str, str | bytes] = {
    "Trips/Expenses.md": "# Expenses\n\nThe receipt from the trip:\n\n![[receipt.png]]\n",
    "Garden.md": "# Garden\n\nTomatoes and basil grow by the wall.\n",
    "assets/receipt.png": text_png("Quarterly invoice 4711"),
    "assets/bomb.png": zero_png(30_000, 30_000, rows=2),
}

pytestmark = needs_engine
# [ocr] timeout_s (per image, default 60 s): one small PNG's reading passed it in a full -n 2 run
# at load ~14 on 2 cores (compute_budget_exceeded), as in tests/reliability/test_nfd_names_elsewhere.
# This test is about what a reading makes findable, not its speed.
OCR_UNDER_LOAD = {"timeout_s": 600.0}


@pytest.mark.timeout(600)  # OCR_UNDER_LOAD
async def test_an_image_read_over_http_makes_its_note_findable_by_its_text(make_vault: Callable[..., Path]) -> None:
    await model_ready()
    embeddings = {"provider": "builtin", "debounce_ms": 0}
    async with e2e(make_vault(FILES), embeddings=embeddings, ocr=OCR_UNDER_LOAD) as (url, harness):
        await settled(harness)
        async with Client(url) as client:
            assert (await ok(client, "search_text", query="quarterly invoice"))["items"] == []
            out = await ok(client, "ocr_attachment", path="receipt.png")
            assert out["text"] == "Quarterly invoice 4711" and not out["cached"]
            assert [n["path"] for n in out["embedded_by"]] == ["Trips/Expenses.md"]
            assert (await ok(client, "ocr_attachment", path="assets/receipt.png"))["cached"]

            hits = await ok(client, "search_text", query="quarterly invoice")
            assert [h["path"] for h in hits["items"]] == ["Trips/Expenses.md"]
            hybrid = await ok(client, "search_hybrid", query="invoice 4711", limit=3)
            assert hybrid["items"][0]["path"] == "Trips/Expenses.md"

            bomb = await error(client, "ocr_attachment", path="assets/bomb.png")
            assert bomb["code"] == "compute_budget_exceeded" and bomb["details"]["limit"] == "pixels"

            started = await ok(client, "ocr_bulk", wait=False)
            job = started["job"]
            assert job["status"] in ("running", "done") and job["unchanged"] == 1  # receipt.png: read above
            done = await ok(client, "ocr_bulk", wait=True)  # joins the job (or finds it ended) and waits
            last = (await ok(client, "ocr_bulk", action="status"))["job"]
            assert last["status"] == "done" and last["failures"] == [
                {"path": "assets/bomb.png", "code": "compute_budget_exceeded"}
            ], (done, last)
