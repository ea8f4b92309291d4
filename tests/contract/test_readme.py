"""The README is a newcomer's page: two quick-start commands, and links to docs/ for the rest (the
tool list included); every link between them points at a file in the repository."""

from __future__ import annotations

import re
from pathlib import Path

from service.tools.registry import build_registry

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_every_registered_tool_is_in_the_linked_tool_list() -> None:
    assert "(docs/tools.md)" in README.read_text(encoding="utf-8")
    text = (REPO / "docs" / "tools.md").read_text(encoding="utf-8")
    missing = [spec.name for spec in build_registry() if f"`{spec.name}`" not in text]
    assert not missing, f"tools missing from docs/tools.md: {missing}"


def test_quick_start_is_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip() and not line.lstrip().startswith("#")]
    assert len(commands) == 2, commands


def test_links_between_the_pages_point_at_files_in_the_repository() -> None:
    broken = []
    for page in PAGES:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            path = target.split("#", 1)[0]
            if not path or "://" in target:
                continue
            resolved = (page.parent / path).resolve()
            if not resolved.exists() or not resolved.is_relative_to(REPO):
                broken.append(f"{page.relative_to(REPO)}: {target}")
    assert not broken, broken
