"""properties domain: frontmatter properties and tags.

Tools: get_properties, set_properties, delete_property, add_tags, remove_tags, rename_tag
(`edit.py`: one note's properties and tags; `tag_rename.py`: a tag renamed in every note); list_tags,
list_properties, property_values (`facets.py`: the vault's tags, keys and values with counts).
Touches: vault files through `VaultFiles.modify`; index tables `notes`, `note_tags`,
`note_properties` (read).
"""

from __future__ import annotations

from service.tools.properties import edit, facets, tag_rename
from service.tools.spec import ToolSpec

TOOLS: tuple[ToolSpec, ...] = (*edit.TOOLS, *tag_rename.TOOLS, *facets.TOOLS)
