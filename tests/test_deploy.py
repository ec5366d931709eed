"""deploy/ refers to what exists: commands the CLI has, settings the bot reads, files in the repository.

Docker and systemd are not available to the tests, so the image is never
built here; these checks catch the drift that would break it.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

from bot import cli as chaodipi_cli
from bot.app import STOP_TIMEOUT
from bot.config import Settings

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
VARIABLE = re.compile(r"^#?((?:TELEGRAM|CHAODIPI)_[A-Z_]+)=(.*)$")


def example_variables() -> dict[str, str]:
    """Every variable of the example env file, set or commented out, with its value."""
    found: dict[str, str] = {}
    for line in (DEPLOY / "chaodipi.env.example").read_text(encoding="utf-8").splitlines():
        match = VARIABLE.match(line.strip())
        if match:
            found[match.group(1)] = match.group(2)
    return found


def read_by_the_bot() -> set[str]:
    sources = "".join((REPO / p).read_text(encoding="utf-8") for p in ("bot/config.py", "storage/config.py"))
    return set(re.findall(r'"((?:TELEGRAM|CHAODIPI)_[A-Z_]+)"', sources))


def runs_the_cli(argv: list[str]) -> None:
    """``argv`` is a ``chaodipi`` command line that the console script accepts."""
    assert Path(argv[0]).name == "chaodipi", argv
    assert PYPROJECT["project"]["scripts"]["chaodipi"] == "bot.cli:main"
    chaodipi_cli._parser().parse_args(argv[1:])  # exits (SystemExit) on an unknown command or option


def test_the_example_env_file_has_every_setting_and_only_real_ones() -> None:
    variables = example_variables()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert set(variables) == read_by_the_bot()
    for name in variables:
        assert f"`{name}`" in readme, f"{name} is not documented in the README"


def test_the_example_env_file_holds_no_token_and_valid_values() -> None:
    variables = example_variables()
    assert variables["TELEGRAM_BOT_TOKEN"] == ""
    settings = Settings.from_env({**variables, "TELEGRAM_BOT_TOKEN": "1:x"})
    assert settings.webhook_url is None and settings.log_format == "text"


def unit(name: str = "chaodipi.service") -> dict[str, list[str]]:
    entries: dict[str, list[str]] = {}
    for line in (DEPLOY / name).read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";")):
            key, _, value = line.partition("=")
            entries.setdefault(key.strip(), []).append(value.strip())
    return entries


def test_the_systemd_unit() -> None:
    entries = unit()
    runs_the_cli(shlex.split(entries["ExecStart"][0]))
    assert shlex.split(entries["ExecStart"][0])[1:] == ["run"]
    assert entries["EnvironmentFile"] == ["/etc/chaodipi.env"]
    assert entries["WorkingDirectory"] == ["/var/lib/chaodipi"]
    assert entries["User"] == ["chaodipi"]
    assert entries["Restart"] == ["on-failure"]
    assert entries["KillSignal"] == ["SIGTERM"]
    assert int(entries["TimeoutStopSec"][0]) > STOP_TIMEOUT + 5
    assert entries["RestartPreventExitStatus"] == ["2"]  # what chaodipi run returns for a setting to fix


# The lines that take `systemd-analyze security` from 6.7 (MEDIUM) to 1.3 (OK); each one's removal fails here.
HARDENING = {
    "NoNewPrivileges": "true", "ProtectSystem": "strict", "ProtectHome": "true", "PrivateTmp": "true",
    "PrivateDevices": "true", "ProtectKernelTunables": "true", "ProtectKernelModules": "true",
    "ProtectControlGroups": "true", "LockPersonality": "true", "CapabilityBoundingSet": "",
    "AmbientCapabilities": "", "RestrictNamespaces": "true", "RestrictSUIDSGID": "true", "RestrictRealtime": "true",
    "PrivateUsers": "true", "ProtectHostname": "true", "ProtectClock": "true", "ProtectKernelLogs": "true",
    "ProtectProc": "invisible", "ProcSubset": "pid", "RemoveIPC": "true", "PrivateMounts": "true", "UMask": "0077",
    "SystemCallArchitectures": "native", "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
}


def test_the_systemd_unit_is_hardened() -> None:
    entries = unit()
    for key, value in HARDENING.items():
        assert entries.get(key) == [value], key
    assert entries["SystemCallFilter"] == ["@system-service", "~@privileged @resources"]


def test_the_backup_timer_runs_the_clis_backup_as_the_bots_user() -> None:
    service = unit("chaodipi-backup.service")
    shell = shlex.split(service["ExecStart"][0])
    assert shell[:2] == ["/bin/sh", "-c"]
    assert "$$(date +%%F)" in shell[2]  # a new file each day: `chaodipi backup` never overwrites one
    command = shlex.split(shell[2].replace("$$(date +%%F)", "DAY"))[1:]  # after `exec`
    runs_the_cli(command)
    assert command[1] == "backup" and service["User"] == ["chaodipi"]
    timer = unit("chaodipi-backup.timer")
    assert timer["OnCalendar"] and timer["Persistent"] == ["true"]


def dockerfile() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1].strip())
            for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_the_dockerfile() -> None:
    """Two stages: one builds the wheel with the engine compiled (it has a C compiler and mypy), the image installs
    only that wheel, at the pinned versions, and runs as its own user."""
    instructions = dockerfile()
    stages: list[list[tuple[str, str]]] = []
    for op, arg in instructions:
        if op == "FROM":
            stages.append([])
        stages[-1].append((op, arg))
    assert [arg for stage in stages for op, arg in stage if op == "FROM"] == [
        "python:3.11-bookworm AS wheel", "python:3.11-slim-bookworm"]  # the same Debian: the wheel's libc
    build, image = stages
    get = lambda name: [arg for op, arg in image if op == name]  # noqa: E731
    assert get("USER") == ["chaodipi"]
    assert get("VOLUME") == ['["/data"]']
    assert "CHAODIPI_DB=/data/chaodipi.db" in get("ENV")
    assert get("WORKDIR")[-1] == "/data"
    assert get("STOPSIGNAL") == ["SIGTERM"]
    import json

    runs_the_cli(json.loads(get("CMD")[0]))
    assert json.loads(get("CMD")[0]) == ["chaodipi", "run"]
    runs_the_cli(json.loads(get("HEALTHCHECK")[0].split("CMD", 1)[1]))
    assert "--from=wheel /wheels /wheels" in get("COPY")
    assert any("pip install -c /src/constraints.txt /wheels/chaodipi-*.whl" in arg for arg in get("RUN"))  # pinned
    copied = set()
    for op, arg in build:
        if op != "COPY":
            continue
        *sources, _ = arg.split()
        for source in sources:
            assert (REPO / source).exists(), source
            copied.add(source)
    # Every top-level package and module the wheel contains is copied in.
    for package in {p.split(".")[0] for p in find_packages(REPO, include=_package_patterns())}:
        assert package in copied, package
    assert {m + ".py" for m in PYPROJECT["tool"]["setuptools"].get("py-modules", [])} <= copied
    assert "pyproject.toml" in copied and "README.md" in copied  # README: the project's readme field
    assert "LICENSE" in copied  # pyproject's license-files
    assert "setup.py" in copied and "constraints.txt" in copied  # the compiled build, at the pinned mypy
    (built,) = [arg for op, arg in build if op == "RUN"]
    assert "pip install -c /src/constraints.txt mypy setuptools" in built
    assert "CHAODIPI_MYPYC=1 pip wheel --no-build-isolation --no-deps -w /wheels /src" in built


def _package_patterns() -> list[str]:
    return list(PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"])


def test_the_package_contains_every_subpackage_and_the_catalogue() -> None:
    """What `pip install .` (the image) installs: every package folder on disk, and the .po files."""
    on_disk = {str(p.parent.relative_to(REPO)).replace("/", ".") for top in ("engine", "storage", "bot")
               for p in (REPO / top).rglob("__init__.py")}
    assert set(find_packages(REPO, include=_package_patterns())) == on_disk
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["bot"]
    catalogues = list((REPO / "bot" / "locale").rglob("*.po"))
    assert catalogues
    for po in catalogues:
        assert any(po.relative_to(REPO / "bot").match(g) for g in globs), po
    # The chart's font and its licence (the image has no Chinese font of its own).
    fonts = PYPROJECT["tool"]["setuptools"]["package-data"]["bot.league"]
    for name in ("ChaodipiSansSC-Regular.otf", "OFL.txt"):
        path = REPO / "bot" / "league" / "fonts" / name
        assert path.is_file() and any(path.relative_to(REPO / "bot" / "league").match(g) for g in fonts), name


def compose() -> str:
    return (DEPLOY / "compose.yaml").read_text(encoding="utf-8")


def test_the_compose_file() -> None:
    text = compose()
    assert re.search(r"^\s+context: \.\.$", text, re.M)
    dockerfile_path = re.search(r"^\s+dockerfile: (\S+)$", text, re.M)
    assert dockerfile_path and (REPO / dockerfile_path.group(1)).is_file()
    assert re.search(r"^\s+env_file: chaodipi\.env$", text, re.M)
    assert re.search(r"^\s+restart: unless-stopped$", text, re.M)
    assert re.search(r"^\s+- chaodipi-data:/data$", text, re.M)  # the image's VOLUME
    assert re.search(r"^volumes:\n  chaodipi-data:", text, re.M)
    grace = re.search(r"^\s+stop_grace_period: (\d+)s$", text, re.M)
    assert grace and int(grace.group(1)) > STOP_TIMEOUT + 5
    assert re.search(r"^\s+init: true$", text, re.M)  # SIGTERM passed on, the AI's workers reaped
    assert re.search(r'^\s+max-size: "\d+m"$', text, re.M) and re.search(r'^\s+max-file: "\d+"$', text, re.M)


@pytest.mark.parametrize("name", ["Dockerfile", "compose.yaml", "chaodipi.service", "chaodipi.env.example"])
def test_no_real_token_in_deploy(name: str) -> None:
    text = (DEPLOY / name).read_text(encoding="utf-8")
    assert not re.search(r"\b\d{8,10}:[A-Za-z0-9_-]{30,}\b", text)


def test_the_readmes_first_command_installs_and_plays() -> None:
    """The first command a newcomer meets needs no token: it installs and opens a table in the browser; the
    Telegram set-up comes after it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.DOTALL)
    first = blocks[0].strip()
    assert "\n" not in first and "TELEGRAM_BOT_TOKEN" not in first, first
    steps = [shlex.split(step) for step in first.split("&&")]
    assert steps[0][:3] == ["python3", "-m", "venv"]
    assert steps[1][1:3] == ["install", "-c"] and "constraints.txt" in steps[1]
    assert steps[-1][1] == "play"
    runs_the_cli(["chaodipi", *steps[-1][1:]])
    assert readme.index("chaodipi play") < readme.index("export TELEGRAM_BOT_TOKEN")
