"""obsidian domain: Obsidian's own files, read, written and evaluated in their real formats
without Obsidian running.

Tools: list_bookmarks (`bookmark_list.py`), add_bookmark, remove_bookmark (`bookmarks.py`); get_workspace,
list_recent_files (`workspace.py`); read_canvas, write_canvas (`canvas.py`); read_excalidraw,
write_excalidraw (`excalidraw.py`, `excalidraw_write.py`: the Excalidraw plugin's drawings,
format in `service.obsidian.excalidraw`); list_attachments (`attachments.py`), read_attachment
(`media.py`); ocr_attachment, ocr_bulk (`ocr.py`: text in images and scanned PDFs, engine in
`service.ocr`); query_base (`bases.py`: Obsidian Bases `.base` files and ```base blocks, through
the engine in `service.bases`). `config.py` opens `.obsidian/` settings files.
Touches: `.obsidian/bookmarks.json` (read/write), `.obsidian/workspace.json` and `app.json`
(read), `.canvas` and `.base` files, Excalidraw drawings (`.excalidraw.md`, `.excalidraw`) and
other attachments; index tables `notes`, `links` (read), `ocr_cache`, `ocr_files` (read/write) and
`note_text` (the text of a note's images, `service.ocr.attached`).
"""

from __future__ import annotations

from service.tools.obsidian import (
    attachments,
    bases,
    bookmark_list,
    bookmarks,
    canvas,
    excalidraw,
    excalidraw_write,
    media,
    ocr,
    workspace,
)
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (
    *bookmark_list.TOOLS,
    *bookmarks.TOOLS,
    *workspace.TOOLS,
    *canvas.TOOLS,
    *excalidraw.TOOLS,
    *excalidraw_write.TOOLS,
    *attachments.TOOLS,
    *media.TOOLS,
    *ocr.TOOLS,
    *bases.TOOLS,
)
