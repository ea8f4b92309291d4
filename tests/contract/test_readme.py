"""The README names every tool the server registers (the tool list is part of the docs)."""

from __future__ import annotations

from pathlib import Path

from service.tools.registry import build_registry

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_registered_tool_is_in_the_readme() -> None:
    text = README.read_text(encoding="utf-8")
    missing = [spec.name for spec in build_registry() if f"`{spec.name}`" not in text]
    assert not missing, f"tools missing from README.md: {missing}"


def test_quick_start_is_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [line for line in block.splitlines()[1:] if line.strip() and not line.lstrip().startswith("#")]
    assert len(commands) == 2, commands
