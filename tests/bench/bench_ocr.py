"""OCR throughput: pages per minute of ocr_bulk as the server runs it (one worker process, the
`[ocr]` defaults: 2 onnxruntime threads, pages scaled to 2000 px), on scanned-looking pages drawn
with Pillow.

Run: `python -m tests.bench.bench_ocr [--pages 8] [--threads 2]`. A vault of `--pages` A4 pages at
200 dpi (1654 x 2339 px, 30 lines of 6-8 English words in DejaVu Sans at 11 pt, black on white)
as PNG files, plus one scanned PDF of 4 such pages; an in-process server (the whole dispatch
chain, no embeddings) runs `ocr_bulk` with `wait: true` over it. `pages_per_minute` counts every
page read (images and PDF pages) over the job's wall time, the worker's start included;
`warm_page_s` is one more page read alone afterwards (`force`), `word_recall` the share of the
drawn words found in the text read (strict: two words read as one count as missed).
`worker_cpu_s_per_page` is the worker process's CPU time (user + system, counted when the server
stops it) over the pages it read: on a machine shared with other work it says what a page costs
where wall time says how busy the machine was; `load_average` is the 1-minute load before and
after. Prints one JSON object (see tests/bench/common.py) with the CPUs this process may use.
Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import random
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from tests.bench.common import report
from tests.conftest import started, write_files
from tests.tools.obsidian.ocr_images import FONT

WORDS = [
    "account",
    "balance",
    "invoice",
    "receipt",
    "payment",
    "customer",
    "order",
    "delivery",
    "address",
    "total",
    "amount",
    "tax",
    "date",
    "number",
    "reference",
    "contract",
    "service",
    "monthly",
    "quarterly",
    "annual",
    "report",
    "meeting",
    "project",
    "budget",
    "office",
    "supplies",
    "travel",
    "hotel",
    "ticket",
    "train",
    "flight",
    "insurance",
    "policy",
    "renewal",
    "notice",
    "reminder",
]
A4 = (1654, 2339)  # 200 dpi
LINES = 30


def page(rng: random.Random) -> tuple[Image.Image, list[str]]:
    font = ImageFont.truetype(FONT, 31)  # 11 pt at 200 dpi
    img = Image.new("RGB", A4, "white")
    draw = ImageDraw.Draw(img)
    words: list[str] = []
    for line in range(LINES):
        chosen = [rng.choice(WORDS) for _ in range(rng.randint(6, 8))]
        words += chosen
        draw.text((150, 180 + line * 66), " ".join(chosen), font=font, fill="black")
    return img, words


def png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


async def main(pages: int, threads: int) -> None:
    rng = random.Random(38)
    files: dict[str, str | bytes] = {}
    drawn: list[str] = []
    for n in range(pages):
        img, words = page(rng)
        files[f"scans/page{n:02d}.png"] = png(img)
        drawn += words
    pdf_pages = [page(rng) for _ in range(4)]
    buf = io.BytesIO()
    pdf_pages[0][0].save(buf, format="PDF", save_all=True, append_images=[p[0] for p in pdf_pages[1:]], resolution=200)
    files["scans/letter.pdf"] = buf.getvalue()
    drawn += [w for _img, words in pdf_pages for w in words]
    result: dict[str, Any] = {"pages": pages + 4, "threads": threads, "cpus": len(os.sched_getaffinity(0))}
    result["load_average"] = [round(os.getloadavg()[0], 2)]
    children = os.times()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        root.mkdir()
        write_files(root, files)
        async with started(root, embeddings={"provider": "none"}, ocr={"threads": threads}) as vg:
            await vg.indexed()
            began = time.perf_counter()
            job = (await vg.ok("ocr_bulk", wait=True))["job"]
            seconds = time.perf_counter() - began
            assert job["status"] == "done" and job["failed"] == 0, job
            result["job_s"] = round(seconds, 2)
            result["pages_per_minute"] = round((pages + 4) * 60 / seconds, 1)
            began = time.perf_counter()
            await vg.ok("ocr_attachment", path="scans/page00.png", force=True)
            result["warm_page_s"] = round(time.perf_counter() - began, 2)
            texts = []
            for rel in sorted(files):
                texts.append((await vg.ok("ocr_attachment", path=rel, lines=False))["text"])
    after = os.times()  # the worker was stopped and reaped with the server: its CPU time is counted
    cpu = (after.children_user - children.children_user) + (after.children_system - children.children_system)
    result["worker_cpu_s_per_page"] = round(cpu / (pages + 4 + 1), 2)
    result["load_average"].append(round(os.getloadavg()[0], 2))
    found = re.findall(r"[a-z]+", " ".join(texts).lower())
    counts: dict[str, int] = {}
    for word in found:
        counts[word] = counts.get(word, 0) + 1
    hit = 0
    for word in drawn:
        if counts.get(word, 0) > 0:
            counts[word] -= 1
            hit += 1
    result["word_recall"] = round(hit / len(drawn), 4)
    report("ocr", result)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pages", type=int, default=8, help="A4 PNG pages (a 4-page PDF is added)")
    parser.add_argument("--threads", type=int, default=2, help="[ocr] threads")
    args = parser.parse_args()
    asyncio.run(main(args.pages, args.threads))
