"""context bundles domain: the arguments and answers of bundle_folder and bundle_files
(`service.tools.bundles.packing` packs them)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from service.tools.bundles.pack import Unit
from service.tools.models import NOTE_ADDRESS, ToolInput, ToolOutput

Mode = Literal["whole", "body", "frontmatter"]
MODES: tuple[Mode, ...] = ("whole", "body", "frontmatter")
DEFAULT_BYTES = 100_000
RESERVE = 16_384  # bytes of a response kept for everything but the entries


class BundleArgs(ToolInput):
    mode: Mode = Field(
        default="whole", description="What of each note: whole, body (without frontmatter), frontmatter (YAML)."
    )
    max_bytes: int | None = Field(
        default=None,
        ge=256,
        le=50_000_000,
        description="Budget of one page: UTF-8 bytes of entry contents (default 100000 when max_tokens is unset).",
    )
    max_tokens: int | None = Field(
        default=None,
        ge=64,
        le=12_500_000,
        description="Budget of one page in estimated tokens (ASCII chars/4 + other chars), instead of max_bytes.",
    )
    cursor: str | None = Field(default=None, description="`next_cursor` of the previous page (same arguments).")

    @model_validator(mode="after")
    def _one_budget(self) -> BundleArgs:
        if self.max_bytes is not None and self.max_tokens is not None:
            raise ValueError("give max_bytes or max_tokens, not both")
        return self

    def budget(self) -> tuple[int, Unit]:
        if self.max_tokens is not None:
            return self.max_tokens, "tokens"
        return self.max_bytes or DEFAULT_BYTES, "bytes"


class BundleFolderIn(BundleArgs):
    folder: str = Field(default="", description="Folder to pack ('' = the whole vault).")
    recursive: bool = Field(default=True, description="Include notes in sub-folders.")


class BundleFilesIn(BundleArgs):
    paths: list[Annotated[str, Field(min_length=1, max_length=1024)]] = Field(
        min_length=1, max_length=1000, description="Notes to pack, in this order. Each: " + NOTE_ADDRESS
    )


class BundleEntry(ToolOutput):
    path: str = Field(description="Vault-relative path.")
    title: str = Field(description="Note title.")
    obsidian_url: str = Field(description="obsidian://open URL of the note.")
    etag: str = Field(description="Content hash of the note when it was read.")
    mtime: float = Field(description="Modification time (Unix seconds).")
    content: str = Field(description="The note's text (or this part of it), secrets redacted per the vault's mode.")
    part: int = Field(description="1 for a note's first (or only) part; 2, 3… for its continuations.")
    start: int = Field(description="Character offset of this part in the selected text (whole, body or YAML).")
    length: int = Field(
        description="Characters of the selected text in all (the note is whole when start=0 "
        "and start + len(content) = length)."
    )
    continues: bool = Field(description="The rest of this note is on the next page.")
    restarted: bool = Field(default=False, description="The note changed after its first part: sent again whole.")
    bytes: int = Field(description="UTF-8 bytes of `content`.")
    tokens: int = Field(description="Estimated tokens of `content`.")
    sensitive: bool = Field(description="The note holds a secret or a health/money topic ([sensitive], [search]).")
    redacted: int = Field(description="Secret spans replaced by [REDACTED:kind] in this part.")


class Manifest(ToolOutput):
    included: list[str] = Field(description="Paths packed in this page, in order (a split note once).")
    continues: str | None = Field(description="The note split across this page and the next, if any.")
    remaining: int = Field(description="Notes not yet started after this page.")
    total: int = Field(description="Notes in the bundle (bundle_files: distinct addresses).")
    unit: Unit = Field(description="What the budget counts: bytes or tokens.")
    budget: int = Field(description="Budget of a page.")
    used: int = Field(description="Budget used by this page's contents.")


class OtherFileItem(ToolOutput):
    address: str = Field(description="The address as given.")
    path: str = Field(description="The file it names: a canvas, a base or an attachment, not packed (no note).")
    kind: str = Field(description="canvas, base, image, pdf, audio, video, text or other.")
    read_with: str = Field(
        description="The tool that reads it: read_canvas, query_base (rows; read_note: its YAML) or read_attachment."
    )


class RefusedItem(ToolOutput):
    address: str = Field(description="The address as given (bundle_folder: the note's path).")
    path: str = Field(description="The note it names, not packed.")
    error: dict[str, Any] = Field(
        description="Why, as read_note would answer: code, message, details (compute_budget_exceeded: the note is "
        "over [limits] max_note_bytes; details path, size, limit 'note_bytes', max_note_bytes)."
    )


class BundleOut(ToolOutput):
    entries: list[BundleEntry] = Field(description="The packed notes of this page, in bundle order.")
    manifest: Manifest = Field(description="What this page holds and what continues on the next one.")
    missing: list[str] = Field(
        default_factory=list, description="bundle_files: addresses in this page's range that name no readable file."
    )
    not_notes: list[OtherFileItem] = Field(
        default_factory=list,
        description="bundle_files: addresses in this page's range naming a canvas, a base or an attachment (not "
        "packed), with the tool that reads each.",
    )
    refused: list[RefusedItem] = Field(
        default_factory=list,
        description="Notes in this page's range that could not be read whole (each with its error); the others "
        "are packed.",
    )
    sensitive_detected: bool = Field(description="Some entry is sensitive: confirm before passing it on.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page; None at the end.")
