"""The shipped example configuration is valid and means what its comments say."""

from __future__ import annotations

import re
from pathlib import Path

from service.indexer.parsepool import default_workers
from service.security.acl import AclGuard
from service.settings import load_settings
from tests.sec_vault import caller

EXAMPLE = Path(__file__).resolve().parents[2] / "deploy" / "vaultgate.example.toml"


def test_example_config_validates_and_denies_private(tmp_path: Path) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    vault = tmp_path / "vault"
    vault.mkdir()
    config = tmp_path / "vaultgate.toml"
    lines = []
    for line in text.splitlines():
        if line.startswith('path = "sample-vault"'):
            line = f'path = "{vault}"'
        lines.append(line)
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = load_settings(config)
    guard = AclGuard(settings)
    vault_id = settings.vaults[0].id
    assert not guard.decide(caller("read:vault"), vault_id, "Private/Diary.md", "read").allowed
    assert guard.decide(caller("read:vault"), vault_id, "Projects/Plan.md", "read").allowed


def test_example_config_redacts_secrets(tmp_path: Path) -> None:
    config = tmp_path / "vaultgate.toml"
    text = EXAMPLE.read_text(encoding="utf-8").replace('path = "sample-vault"', f'path = "{tmp_path}"')
    config.write_text(text, encoding="utf-8")
    assert load_settings(config).sensitive.mode == "redact"


def test_the_parse_workers_default_is_written_as_the_code_computes_it() -> None:
    """The example said "default CPUs - 1 (max 3)" while the code (and docs/configuration.md)
    keep two CPUs for the writer and the server: both comments now give the rule checked here."""
    rule = r"default CPUs - (\d) \(min (\d), max (\d); (\d) on 1 CPU\)"
    configuration = EXAMPLE.parents[1] / "docs" / "configuration.md"
    for page in (EXAMPLE, configuration):
        line = next(x for x in page.read_text(encoding="utf-8").splitlines() if "# parse_workers" in x)
        found = re.search(rule, line)
        assert found is not None, f"{page.name}: {line}"
        kept, least, most, alone = (int(g) for g in found.groups())
        for cpus in range(1, 9):
            written = alone if cpus == 1 else max(least, min(most, cpus - kept))
            assert default_workers(cpus) == written, (page.name, cpus)
