"""A search vault: varied text, nested tags, typed properties (strings, numbers, booleans,
dates, lists), a code block holding tag-like and word-like text, and a note in a folder the
tests deny to the caller."""

from __future__ import annotations

SEARCH_VAULT: dict[str, str | bytes] = {
    "Projects/Alpha.md": (
        "---\ntitle: Alpha launch\ntags: [project/alpha, active]\nstatus: active\npriority: 3\n"
        "due: 2026-03-01\nreviewed: true\nowners: [ana, Bob]\n---\n"
        "# Alpha launch\n\nThe rocket launches on Friday.\nLaunching needs fuel and a checklist.\n"
        "Contact: ana@example.com\n"
    ),
    "Projects/Beta.md": (
        "---\ntags: [project/beta]\nstatus: Done\npriority: 1\ndue: 2025-12-24\nreviewed: false\n"
        "owners: [bob]\n---\n# Beta\n\nA quiet project about gardening and soil.\n\n```\n#notatag rocket\n```\n"
    ),
    "Projects/Gamma.md": (
        "---\ntags: project\nstatus: draft\npriority: 2.5\nrating:\n---\n# Gamma\n\n"
        "Rocket science notes. See also the garden.\nError: code 42 on line 7\n"
    ),
    "Journal/2026-01-05.md": "# Monday\n\nWent to the garden; planted tomatoes. #gardening #Project/Beta\n",
    "Journal/2026-01-06.md": "# Tuesday\n\nRead about rockets and orbital mechanics.\n",
    "Private/Secret.md": (
        "---\ntags: [project/alpha, secret]\nstatus: active\npriority: 9\n---\n# Secret\n\n"
        "The rocket codes are hidden here. Launch sequence omega.\n"
    ),
    "Welcome.md": "# Welcome\n\nStart here. Nothing about rockets.\n",
}
