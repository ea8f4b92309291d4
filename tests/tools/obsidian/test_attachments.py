"""list_attachments and read_attachment, through the chain."""

from __future__ import annotations

import base64
import io
import json
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import mcp_types as types
import pytest
from PIL import Image

from tests.conftest import Harness, started

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}


def png(width: int, height: int, *, noise: bool = False) -> bytes:
    img = Image.new("RGB", (width, height), (200, 30, 30))
    if noise:  # incompressible, so the file size follows the pixel count
        rng = random.Random(7)
        img.frombytes(bytes(rng.getrandbits(8) for _ in range(width * height * 3)))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def pdf(text: str) -> bytes:
    """A one-page PDF whose page shows `text` (Helvetica), with document info."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Title (Field guide) /Author (Ada) >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out


FILES: dict[str, str | bytes] = {
    "Daily/Today.md": "Look: ![[cat.png]] and [the guide](Files/guide.pdf)\n",
    "Notes/Other.md": "Also [[cat.png]]\n",
    "Private/Secret.md": "![[cat.png]] ![[Files/data.csv]]\n",
    "img/cat.png": png(40, 20),
    "Files/guide.pdf": pdf("Hello canvas world"),
    "Files/data.csv": "a,b\n1,2\n",
    "Files/song.mp3": b"ID3\x00\x00binary",
    "Files/diagram.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>',
    "Board.canvas": '{"nodes":[]}',
    "Private/photo.png": png(4, 4),
    ".obsidian/app.json": json.dumps({"attachmentFolderPath": "./assets", "alwaysUpdateLinks": True}),
}


@pytest.fixture
async def at(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    async with started(make_vault(FILES), acl=NO_PRIVATE) as harness:
        await harness.indexed()
        yield harness


@pytest.mark.covers("list_attachments", "success")
async def test_list_kinds_sizes_and_embedding_notes(at: Harness) -> None:
    out = await at.ok("list_attachments")
    got = {i["path"]: (i["kind"], i["mime"]) for i in out["items"]}
    assert got == {
        "Board.canvas": ("canvas", "application/json"),
        "Files/data.csv": ("text", "text/csv"),
        "Files/diagram.svg": ("image", "image/svg+xml"),
        "Files/guide.pdf": ("pdf", "application/pdf"),
        "Files/song.mp3": ("audio", "audio/mpeg"),
        "img/cat.png": ("image", "image/png"),
    }  # Private/photo.png is invisible
    assert out["total"] == 6
    cat = next(i for i in out["items"] if i["path"] == "img/cat.png")
    assert cat["size"] == len(FILES["img/cat.png"]) and cat["obsidian_url"].endswith("file=img%2Fcat.png")
    assert [(n["path"], n["embed"]) for n in cat["embedded_by"]] == [
        ("Daily/Today.md", True),
        ("Notes/Other.md", False),
    ]
    csv = next(i for i in out["items"] if i["path"] == "Files/data.csv")
    assert csv["embedded_by"] == []  # only a note the caller may not read embeds it
    assert out["attachment_folder"] == {
        "setting": "./assets", "folder": "assets", "for_note": None, "obsidian_url": "obsidian://open?vault=vault0&file=assets",
    }  # fmt: skip
    images = await at.ok("list_attachments", kind="image", folder="img")
    assert [i["path"] for i in images["items"]] == ["img/cat.png"]
    unused = await at.ok("list_attachments", embedded=False)
    assert [i["path"] for i in unused["items"]] == [
        "Board.canvas",
        "Files/data.csv",
        "Files/diagram.svg",
        "Files/song.mp3",
    ]
    page = await at.ok("list_attachments", limit=4)
    rest = await at.ok("list_attachments", limit=4, cursor=page["next_cursor"])
    assert len(page["items"]) == 4 and len(rest["items"]) == 2 and rest["next_cursor"] is None
    here = await at.ok("list_attachments", for_note="Today", limit=1)
    assert (
        here["attachment_folder"]["folder"] == "Daily/assets"
        and here["attachment_folder"]["for_note"] == "Daily/Today.md"
    )


async def test_the_files_one_note_uses(at: Harness) -> None:
    """`embedded_by` keeps the files that one note links to or embeds; `for_note` stays where a
    new attachment would go (that note's, unless another is named)."""
    today = await at.ok("list_attachments", embedded_by="Today")
    assert [i["path"] for i in today["items"]] == ["Files/guide.pdf", "img/cat.png"] and today["total"] == 2
    assert today["attachment_folder"]["for_note"] == "Daily/Today.md"
    other = await at.ok("list_attachments", embedded_by="[[Other]]", for_note="Daily/Today.md", kind="image")
    assert [i["path"] for i in other["items"]] == ["img/cat.png"]
    assert other["attachment_folder"]["folder"] == "Daily/assets"
    first = await at.ok("list_attachments", embedded_by="Daily/Today.md", limit=1)
    rest = await at.ok("list_attachments", embedded_by="Daily/Today.md", limit=1, cursor=first["next_cursor"])
    assert [i["path"] for i in first["items"] + rest["items"]] == ["Files/guide.pdf", "img/cat.png"]
    assert rest["next_cursor"] is None
    await at.err("list_attachments", "validation_error", embedded_by="Other", cursor=first["next_cursor"])
    # A note the caller may not read is not a filter it can use (its files stay unlisted).
    await at.err("list_attachments", "acl_denied", embedded_by="Private/Secret.md")
    none = await at.ok("list_attachments", embedded_by="Notes/Other.md", folder="Files")
    assert none["items"] == [] and none["total"] == 0


@pytest.mark.covers("list_attachments", "failure")
async def test_list_failures(at: Harness) -> None:
    await at.err("list_attachments", "acl_denied", folder="Private")
    await at.err("list_attachments", "validation_error", kind="spreadsheet")
    await at.err("list_attachments", "note_not_found", for_note="Nobody")
    await at.err("list_attachments", "note_not_found", embedded_by="Nobody")
    await at.err("list_attachments", "path_invalid", folder="../x")


@pytest.mark.covers("read_attachment", "success")
async def test_read_an_image_as_image_content(at: Harness) -> None:
    result = await at.call("read_attachment", path="img/cat.png")
    assert not result.is_error and result.structured is not None
    assert result.structured["image"] == {
        "width": 40, "height": 20, "sent_width": 40, "sent_height": 20, "sent_mime": "image/png",
        "sent_bytes": len(FILES["img/cat.png"]), "resized": False,
    }  # fmt: skip
    [block] = result.extra_content
    assert isinstance(block, types.ImageContent) and block.mime_type == "image/png"
    assert base64.b64decode(block.data) == FILES["img/cat.png"]
    assert [n["path"] for n in result.structured["embedded_by"]] == ["Daily/Today.md", "Notes/Other.md"]
    small = await at.call("read_attachment", path="img/cat.png", max_dimension=32)
    assert small.structured is not None and small.structured["image"]["sent_width"] == 32
    assert small.structured["image"]["resized"] is True
    sent = Image.open(io.BytesIO(base64.b64decode(small.extra_content[0].data)))
    assert sent.size == (32, 16)


async def test_read_text_pdf_and_binary(at: Harness) -> None:
    csv = await at.ok("read_attachment", path="Files/data.csv")
    assert csv["text"] == "a,b\n1,2\n" and csv["kind"] == "text" and csv["image"] is None
    svg = await at.ok("read_attachment", path="Files/diagram.svg")
    assert svg["text"].startswith("<svg")
    cut = await at.ok("read_attachment", path="Files/data.csv", max_chars=3)
    assert cut["text"] == "a,b" and cut["truncated"] is True
    guide = await at.ok("read_attachment", path="Files/guide.pdf")
    assert guide["pdf"]["pages"] == 1 and guide["pdf"]["metadata"] == {"Title": "Field guide", "Author": "Ada"}
    assert "Hello canvas world" in guide["text"]
    assert [n["path"] for n in guide["embedded_by"]] == ["Daily/Today.md"]
    song = await at.ok("read_attachment", path="Files/song.mp3")
    assert song["text"] is None and song["kind"] == "audio" and song["size"] == 11


async def test_big_images_are_scaled_to_the_budget_or_refused(make_vault: Callable[..., Path]) -> None:
    files: dict[str, str | bytes] = {"big.png": png(400, 300, noise=True), "A.md": ""}
    async with started(make_vault(files), governor={"max_response_bytes": 64 * 1024}) as vg:
        result = await vg.call("read_attachment", path="big.png")
        assert not result.is_error and result.structured is not None
        info = result.structured["image"]
        assert info["resized"] is True and info["sent_width"] < 400 and result.size <= 64 * 1024
        assert info["sent_width"] / info["sent_height"] == pytest.approx(4 / 3, rel=0.02)
    async with started(make_vault(files), governor={"max_response_bytes": 1024}) as vg:
        err = await vg.err("read_attachment", "overflow", path="big.png")
        assert err["details"]["limit"] < 1024


@pytest.mark.covers("read_attachment", "failure")
async def test_read_failures(at: Harness) -> None:
    await at.err("read_attachment", "acl_denied", path="Private/photo.png")
    await at.err("read_attachment", "note_not_found", path="img/dog.png")
    assert (await at.err("read_attachment", "validation_error", path="Daily/Today.md"))["details"][
        "reason"
    ] == "is_a_note"
    await at.err("read_attachment", "path_invalid", path="../etc/passwd")
    await at.err("read_attachment", "acl_denied", path=".obsidian/app.json")
    (at.root / "img/broken.png").write_bytes(b"\x89PNG not really")
    broken = await at.err("read_attachment", "validation_error", path="img/broken.png")
    assert broken["details"]["reason"] == "undecodable_image" and " object at 0x" not in broken["message"]


async def test_the_image_survives_call_capability(at: Harness) -> None:
    result = await at.call("call_capability", name="read_attachment", arguments={"path": "img/cat.png"})
    assert not result.is_error and result.structured is not None
    assert result.structured["result"]["image"]["sent_width"] == 40
    [block] = result.extra_content
    assert isinstance(block, types.ImageContent) and base64.b64decode(block.data) == FILES["img/cat.png"]
