"""Obsidian's own file formats, as pure functions over parsed JSON: JSON Canvas, bookmarks,
the workspace and the attachment settings. Nothing here touches the file system."""
