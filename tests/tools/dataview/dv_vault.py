"""A vault built for the Dataview tests: books with frontmatter and inline fields, projects with
tasks, daily notes, links between them and one private note the ACL tests deny."""

from __future__ import annotations

DV_VAULT: dict[str, str | bytes] = {
    "Books/Dune.md": (
        "---\ngenre: scifi\nrating: 9\nauthors: [Frank Herbert]\nread: 2024-03-01\n---\n"
        "# Dune\n#book/scifi\n\n**Pages**:: 412\nMood:: epic\nI would rate it [stars:: 5] today (tone:: dark).\n"
        "Series:: [[Dune Messiah]]\n"
    ),
    "Books/Dune Messiah.md": (
        "---\ngenre: scifi\nrating: 7\nauthors:\n  - Frank Herbert\n---\n#book/scifi\n\nPages:: 256\nMood:: bleak\n"
    ),
    "Books/Emma.md": (
        "---\ngenre: classic\nrating: 8\nauthors: [Jane Austen]\n---\n#book\n\nPages:: 474\n"
        'Reading time:: 2 days 4 hours\nTags list:: "a", "b"\nLinks to [[Dune]].\n'
    ),
    "Projects/Alpha.md": (
        "---\nstatus: active\ndue: 2026-01-15\n---\n#project\nSee [[Dune]] and [[Emma]].\n\n"
        "- [ ] write intro [priority:: 1]\n    - [x] outline ✅ 2025-12-01\n- [x] pick title\n- plain item\n"
    ),
    "Projects/Beta.md": "---\nstatus: done\n---\n#project\n\n- [ ] review [[Alpha]] 📅 2026-02-01\n",
    "Daily/2026-01-05.md": "Mood:: calm\nworked on [[Alpha]]\n",
    "Private/Secret.md": "---\nrating: 10\ngenre: scifi\n---\n#book\nSecret about [[Dune]].\n- [ ] hidden task\n",
    "Code.md": "```\nfake:: value\n- [ ] not a task\n```\nreal:: yes\n",
}
