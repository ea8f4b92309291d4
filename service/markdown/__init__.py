"""Obsidian Markdown: frontmatter, parsing (tags, links, headings, blocks, tasks), sections."""
