"""obsidian domain, text in images: ocr_attachment, ocr_bulk.

ocr_attachment reads the text of one image (png, jpg, webp, gif, bmp, avif) or PDF (its pages
rendered, the first `[ocr] max_pdf_pages`) with the recognizer the `rapidocr-onnxruntime` wheel
ships (`service.ocr`): the text, each line with its confidence and box, and the notes that embed
the file. It is cached by content: a second call, or a copy of the file, answers at once
(`cached`). ocr_bulk runs the same over every image and PDF of the vault or of a folder as a
background job (`service.ocr.bulk`), with progress; it answers with the job, which a later call
shows (`action: status`) or stops (`action: cancel`), or runs as an MCP task
(`service.protocol.ocr_tasks`). The text of a file joins the full-text
row of each note embedding it, so search_text and search_hybrid find those notes by what their
images say. Bounds (`[ocr]`): file size, pixels (decompression bombs are refused from the
header), time per image or page (the worker is stopped), pages per PDF; a file past one is
`compute_budget_exceeded`, a corrupt one `validation_error`, a server without the package
`mode_unavailable`.
Touches: image and PDF files (read), index tables `ocr_cache`, `ocr_files` (read/write),
`note_text` (write: the embedding notes' full-text rows), `links` (read).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

from service.ocr.bulk import OcrJob
from service.ocr.component import Ocr
from service.ocr.engine import unavailable
from service.ocr.reading import readable_kind
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.obsidian.attachments import Linker, linkers
from service.tools.spec import ToolSpec

WAIT_S = 10.0  # ocr_bulk without `wait`: how long it waits before answering with the running job
FILE_ADDRESS = "The image or PDF: its vault path, or its name as an embed names it ('scan.png', '![[scan.png]]')."


def _ocr(ctx: ToolContext) -> Ocr:
    ocr = ctx.services.ocr
    if ocr is None:
        raise unavailable("disabled")
    ocr.engine.check()
    return ocr


# -- ocr_attachment ---------------------------------------------------------------------------


class OcrAttachmentIn(ToolInput):
    path: str = Field(min_length=1, max_length=1024, description=FILE_ADDRESS)
    force: bool = Field(default=False, description="Read it again even when this content was read before.")
    lines: bool = Field(default=True, description="List each line with its confidence and box.")
    max_chars: int = Field(default=100_000, ge=1, le=1_000_000, description="At most this much text (and lines).")


class OcrLine(BaseModel):
    text: str = Field(description="The line's text.")
    confidence: float = Field(description="The recognizer's confidence, 0-1.")
    box: list[int] = Field(description="[x0, y0, x1, y1] in the image's pixels (a PDF page: as rendered).")
    page: int | None = Field(description="1-based PDF page (null for an image).")


class OcrAttachmentOut(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    obsidian_url: str = Field(description="obsidian://open URL of the file.")
    kind: Literal["image", "pdf"] = Field(description="image or pdf.")
    etag: str = Field(description="Content hash of the file (the cache key).")
    engine: str = Field(description="The recognizer and its version.")
    text: str = Field(description="The text, line by line, top to bottom ('' when the file shows none).")
    truncated: bool = Field(description="Whether text and lines were cut at max_chars.")
    lines: list[OcrLine] = Field(description="Each line (empty when lines=false).")
    line_count: int = Field(description="Lines found in all.")
    pages: int = Field(description="Pages of the file (1 for an image).")
    pages_read: int = Field(description="Pages read (a PDF past [ocr] max_pdf_pages is read in part).")
    cached: bool = Field(description="Answered from the cache: this content was read before.")
    seconds: float = Field(description="How long recognizing it took (when it was read).")
    embedded_by: list[Linker] = Field(description="Notes that embed or link to it: search finds them by its text.")


async def ocr_attachment(ctx: ToolContext, args: OcrAttachmentIn) -> OcrAttachmentOut:
    vp = await ctx.find_file(args.path, "read")  # the file before the mode (`service.tools.search`, ORDER)
    ocr = _ocr(ctx)
    reading = await ocr.reader.read(ctx.vault.id, vp.rel, ctx.vault.paths.root, vp.abs, force=args.force)
    text = reading.text[: args.max_chars]
    shown, used = [], 0
    if args.lines:
        for line_text, confidence, box, page in reading.lines:
            used += len(line_text) + 1
            if used > args.max_chars:
                break
            shown.append(OcrLine(text=line_text, confidence=confidence, box=list(box), page=page))
    return OcrAttachmentOut(
        path=vp.rel,
        obsidian_url=ctx.vault.url(vp.rel),
        kind="pdf" if reading.kind == "pdf" else "image",
        etag=reading.digest,
        engine=reading.engine,
        text=text,
        truncated=len(reading.text) > args.max_chars,
        lines=shown,
        line_count=len(reading.lines),
        pages=reading.pages,
        pages_read=reading.pages_read,
        cached=reading.cached,
        seconds=reading.seconds,
        embedded_by=(await linkers(ctx, [vp.rel])).get(vp.rel, []),
    )


# -- ocr_bulk ---------------------------------------------------------------------------------


class OcrBulkIn(ToolInput):
    folder: str | None = Field(
        default=None, max_length=1024, description="Only files under this folder (default: all)."
    )
    action: Literal["start", "status", "cancel"] = Field(
        default="start",
        description="start: a job (or join the running one); status: the running or last job; cancel: stop it.",
    )
    force: bool = Field(default=False, description="start: read again files read before, changed or not.")
    wait: bool | None = Field(
        default=None,
        description="start: true waits for the end (progress meanwhile); false answers at once; unset waits "
        "up to 10 s, then answers with the running job.",
    )


class OcrFailure(BaseModel):
    path: str = Field(description="The file.")
    code: str = Field(description="Its error code (compute_budget_exceeded, validation_error, ...).")


class OcrJobOut(BaseModel):
    id: str = Field(description="The job's id.")
    status: Literal["running", "done", "failed", "cancelled"] = Field(description="Where the job is.")
    folder: str = Field(description="The folder it reads ('' for the whole vault).")
    total: int = Field(description="Files to read (unchanged ones left out).")
    done: int = Field(description="Of them, handled so far.")
    read: int = Field(description="Read by the recognizer.")
    cached: int = Field(description="Answered by the content cache (a copy of a file read before).")
    unchanged: int = Field(description="Left out: unchanged since they were read (or failed).")
    failed: int = Field(description="Files that could not be read.")
    failures: list[OcrFailure] = Field(description="The first of them that you may read, with their error code.")
    started_at: str = Field(description="When it started (ISO UTC).")
    finished_at: str | None = Field(description="When it ended (ISO UTC; null while running).")
    error: str | None = Field(description="Why the job itself failed.")


class OcrBulkOut(ToolOutput):
    job: OcrJobOut | None = Field(description="The job (null: status or cancel found none).")
    already_running: bool = Field(description="start joined a job already running.")


def _iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


def job_out(can_read: Callable[[str], bool], job: OcrJob) -> OcrJobOut:
    """The job as a caller sees it: only the failures of files `can_read` allows are named."""
    return OcrJobOut(
        id=job.id,
        status=job.status,
        folder=job.folder,
        total=job.total,
        done=job.done,
        read=job.read,
        cached=job.cached,
        unchanged=job.unchanged,
        failed=job.failed,
        failures=[OcrFailure(path=p, code=c) for p, c in job.failures if can_read(p)],
        started_at=_iso(job.started_at) or "",
        finished_at=_iso(job.finished_at),
        error=job.error,
    )


async def ocr_bulk(ctx: ToolContext, args: OcrBulkIn) -> OcrBulkOut:
    # The folder before the mode (`service.tools.search`, ORDER); none there: note_not_found naming those meant.
    where = None
    if args.action == "start":
        where = ctx.folder(args.folder, field="folder") if args.folder else ctx.vault.paths.resolve("", allow_root=True)
    ocr = _ocr(ctx)
    jobs = ocr.jobs
    if where is None:
        found = await jobs.cancel(ctx.vault.id) if args.action == "cancel" else jobs.last(ctx.vault.id)
        return OcrBulkOut(job=job_out(ctx.can_read, found) if found else None, already_running=False)
    readable = ctx.walk_filter()

    def listing() -> list[tuple[str, float, int]]:
        found = []
        for rel, entry in ctx.vault.files.walk(where, readable=readable):
            if entry.is_file() and readable_kind(rel) is not None:
                st = entry.stat()
                found.append((rel, st.st_mtime, st.st_size))
        return sorted(found)

    files = await asyncio.to_thread(listing)

    async def progress(done: int, total: int, message: str) -> None:
        with contextlib.suppress(Exception):  # a gone client does not stop the job
            await ctx.progress(done, total or None, message)

    job, joined = await jobs.launch(ctx.vault, where.rel, files, force=args.force, progress=progress)
    within = WAIT_S if args.wait is None else (None if args.wait else 0.0)
    try:
        if within != 0.0:  # a job joined while its files were listed has no task yet: `wait` waits for it
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(jobs.wait(job), within)
    finally:
        jobs.detach(job, progress)
    return OcrBulkOut(job=job_out(ctx.can_read, job), already_running=joined)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="ocr_attachment",
        domain="obsidian",
        title="Read the text in an image",
        description="Read the text of an image (png, jpg, webp, gif, bmp, avif) or a scanned PDF with the "
        "built-in OCR model: the text, each line with its confidence and box, and the notes that embed the file. "
        "Cached by content (a second call is instant); the text is indexed, so search_text finds the notes "
        "that embed the image by what it says. Bounded by file size, pixels, time and PDF pages "
        "(compute_budget_exceeded). Use ocr_bulk for a whole vault or folder.",
        input_model=OcrAttachmentIn,
        output_model=OcrAttachmentOut,
        handler=ocr_attachment,
        tags=("attachments", "ocr"),
    ),
    ToolSpec(
        name="ocr_bulk",
        domain="obsidian",
        title="Read the text in every image",
        description="A background job that reads the text of every image and PDF of the vault or of `folder` "
        "(files unchanged since they were read are left out), so search finds notes by what their images "
        "say. Reports progress while waiting; by default waits up to 10 s, then answers with the running job. "
        "action=status shows the running or last job, action=cancel stops it; a second start joins it; a client "
        "with MCP tasks may run it as a task.",
        input_model=OcrBulkIn,
        output_model=OcrBulkOut,
        handler=ocr_bulk,
        task_support=True,
        tags=("attachments", "ocr"),
    ),
)
