"""notes domain: read, write, copy, delete and move notes, files and folders.

Tools: read_note, read_notes, note_info (`read.py`); get_outline (`outlines.py`: headings and
block ids with their lines and links); list_notes, list_folders (`listing.py`); create_note,
write_note, append_note, prepend_note, patch_note (`write.py`); delete_note, copy_note,
create_folder (`files.py`); bulk_create_notes (`bulk.py`); move_note, rename_note (`moves.py`,
rewriting every link to what moved); replace_text (`replace.py`, find and
replace in note bodies). `note_facts.py` reads a note's facts from the index when
its row is current.
Touches: vault files (through `VaultFiles`); index tables `notes`, `links` (read: link counts,
note facts, the notes that link to a moved file).
"""

from __future__ import annotations

from service.tools.notes import bulk, files, listing, moves, outlines, read, replace, write
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (
    *read.TOOLS,
    *outlines.TOOLS,
    *listing.TOOLS,
    *write.TOOLS,
    *files.TOOLS,
    *bulk.TOOLS,
    *moves.TOOLS,
    *replace.TOOLS,
)
