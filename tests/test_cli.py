"""The ``chaodipi`` command as an operator meets it: help for each command, the demo, health."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def chaodipi(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``chaodipi ARGS`` from this checkout."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "CHAODIPI_"))}
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=REPO, capture_output=True, text=True,
                          env={**base, "PYTHONPATH": str(REPO), **(env or {})}, timeout=120)


def test_top_level_help_lists_every_command() -> None:
    done = chaodipi("--help")
    assert done.returncode == 0
    for command in ("run", "play", "demo", "backup", "restore", "health"):
        assert f"    {command}" in done.stdout
    assert "chaodipi COMMAND --help" in done.stdout


def test_run_help_lists_every_setting() -> None:
    done = chaodipi("run", "--help")
    assert done.returncode == 0
    read = set(_settings_read_by_the_bot())
    assert read and all(name in done.stdout for name in read), read
    assert "SIGTERM" in done.stdout and "chaodipi demo" in done.stdout


@pytest.mark.parametrize("command, expected", [
    ("demo", ["--preset", "--lang", "--seed", "--match", "--ai", "examples:"]),
    ("play", ["--preset", "--ai", "--lang", "--db", "--port", "--listen", "--name", "--new", "--open", "examples:"]),
    ("backup", ["PATH", "--db", "integrity_check", "chaodipi restore"]),
    ("restore", ["PATH", "--db", "-wal"]),
    ("health", ["--db", "--max-age", "heartbeat", "GET /health"]),
])
def test_each_command_has_its_help(command: str, expected: list[str]) -> None:
    done = chaodipi(command, "--help")
    assert done.returncode == 0
    for text in expected:
        assert text in done.stdout, (command, text)


def test_the_demo_plays_a_hand_to_its_result() -> None:
    # The casual AI: it answers at once, and repeats a seed exactly (the strong one's search is timed).
    done = chaodipi("demo", "--seed", "1", "--lang", "en", "--ai", "casual")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Trick 1:" in out
    assert "Hand 1 is over" in out
    assert "Attackers scored" in out and "Kitty" in out
    assert done.stdout == chaodipi("demo", "--seed", "1", "--lang", "en", "--ai", "casual").stdout  # the seed fixes the game


def test_the_readmes_demo_is_what_the_demo_prints() -> None:
    """The README shows a demo's hand as the group sees it: the command it names prints exactly that, from the
    table message at the first trick to the result (the casual AI repeats a seed; the strong one need not)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = re.search(r"This is `chaodipi (demo[^`]*)`", readme)
    assert command is not None and "--ai casual" in command.group(1), "the README's demo must repeat exactly"
    shown = readme[command.end():].split("```\n", 2)[1].strip("\n")
    done = chaodipi(*shlex.split(command.group(1)))
    assert done.returncode == 0, done.stderr
    assert shown.count("\n") > 20 and done.stdout.strip("\n").endswith(shown), "README.md shows another game"


def test_play_on_an_address_of_another_machine_says_what_to_do(tmp_path: Path) -> None:
    """The README's `--listen 192.168.1.20`, copied on a machine that is not at that address."""
    done = chaodipi("play", "--listen", "192.0.2.1", "--db", str(tmp_path / "p.db"))  # TEST-NET-1: nobody's
    assert done.returncode == 1, done.stderr
    assert "cannot listen on 192.0.2.1" in done.stderr and "not an address of this machine" in done.stderr
    assert "Traceback" not in done.stderr and "[Errno" not in done.stderr


def test_play_on_a_port_in_use_says_so_and_ends(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "bot.cli", "play", "--port", str(port), "--db",
                               str(tmp_path / "p.db")], cwd=REPO, capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 1, done.stderr
    assert f"cannot listen on 127.0.0.1 port {port}" in done.stderr and "--port" in done.stderr


def test_play_ends_when_its_server_cannot_start_after_the_database_opened(tmp_path: Path) -> None:
    """The port taken between the check and the server's start: the error is told and the process ends (the
    database opened at start-up is closed, else its thread kept the process alive)."""
    script = (
        "import socket, sys\n"
        "import bot.local.play as play\n"
        "from bot import cli\n"
        "busy = socket.socket(); busy.bind(('127.0.0.1', 0)); busy.listen()\n"
        "play._port = lambda listen, port: busy.getsockname()[1]\n"
        f"sys.exit(cli.main(['play', '--db', {str(tmp_path / 'p.db')!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 1, done.stderr
    assert "address already in use" in done.stderr


def test_run_with_a_bad_setting_names_it() -> None:
    done = chaodipi("run", env={"TELEGRAM_BOT_TOKEN": "1:x", "CHAODIPI_LOG_FORMAT": "xml"})
    assert done.returncode == 2
    assert "CHAODIPI_LOG_FORMAT" in done.stderr and "Traceback" not in done.stderr


def test_health_reads_the_heartbeat(tmp_path: Path) -> None:
    db = tmp_path / "chaodipi.db"
    beat = tmp_path / "chaodipi.db.heartbeat"
    missing = chaodipi("health", "--db", str(db))
    assert missing.returncode == 1 and "not running" in missing.stderr
    status = {"ok": True, "mode": "polling", "active_tables": 2, "uptime": 30.0, "pid": 1, "time": time.time()}
    beat.write_text(json.dumps(status))
    fresh = chaodipi("health", env={"CHAODIPI_DB": str(db)})
    assert fresh.returncode == 0 and "active_tables=2" in fresh.stdout
    beat.write_text(json.dumps(status | {"time": time.time() - 600}))
    stale = chaodipi("health", "--db", str(db))
    assert stale.returncode == 1 and "stale" in stale.stderr


def _settings_read_by_the_bot() -> list[str]:
    import re

    sources = (REPO / "bot" / "config.py").read_text() + (REPO / "storage" / "config.py").read_text()
    return sorted(set(re.findall(r'"((?:TELEGRAM|CHAODIPI)_[A-Z_]+)"', sources)))


@pytest.mark.parametrize("token", ["123456:ABC-your-token", "123456:ABC-DEF...", "<your token>"])
def test_a_placeholder_token_is_one_sentence(token: str) -> None:
    done = chaodipi("run", env={"TELEGRAM_BOT_TOKEN": token})
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "TELEGRAM_BOT_TOKEN is not a bot token" in done.stderr
    assert token not in done.stderr + done.stdout


def test_a_base_url_without_bot_is_one_sentence() -> None:
    done = chaodipi("run", env={"TELEGRAM_BOT_TOKEN": "1:AAHsecret", "TELEGRAM_BASE_URL": "http://127.0.0.1:8081"})
    assert done.returncode == 2
    assert done.stderr == ("chaodipi run: TELEGRAM_BASE_URL must end with /bot, as in http://127.0.0.1:8081/bot, "
                           "or name the token's place as in https://api.telegram.org/bot{token}/test; "
                           "did you mean http://127.0.0.1:8081/bot ?\n")


def test_run_help_offers_verbose() -> None:
    assert "--verbose" in chaodipi("run", "--help").stdout


def test_gitignore_covers_every_file_written_beside_the_database() -> None:
    from bot.health import heartbeat_path

    db = Path("chaodipi.db")
    written = [db, Path("chaodipi.db-wal"), Path("chaodipi.db-shm"), Path("chaodipi.db-journal"),
               heartbeat_path(db), Path(f"{heartbeat_path(db)}.partial"),
               Path("backup.db.partial-4242"), Path("backup.db.partial-4242-wal"), Path("league.sqlite3-wal")]
    done = subprocess.run(["git", "check-ignore", "--no-index", "--verbose", *map(str, written)], cwd=REPO,
                          capture_output=True, text=True)
    ignored = {line.split("\t")[-1] for line in done.stdout.splitlines()}
    assert ignored == set(map(str, written)), set(map(str, written)) - ignored


def test_version_is_the_installed_packages() -> None:
    import tomllib

    declared = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    done = chaodipi("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"chaodipi {declared['version']}"


def test_run_refuses_a_compiled_engine_older_than_its_source(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A compiled module left from before an edit or a pull would play the old code: the bot does not start."""
    import engine.compiled
    from bot.cli import main

    for name in [k for k in os.environ if k.startswith(("TELEGRAM_", "CHAODIPI_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "987654321:AAHdkq3Zx9vTqLwPmN4rS7uYbC2eF5gJ8hK")
    monkeypatch.setattr(engine.compiled, "stale_builds", lambda: ["engine/combos.py"])
    assert main(["run"]) == 2
    err = capsys.readouterr().err
    assert "engine/combos.py" in err and "build_ext --inplace" in err and "AAHdkq3Zx9" not in err


def test_run_names_the_settings_of_an_address_it_cannot_listen_on(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The web app's or the webhook's server on a port in use: the settings that move it are named."""
    import errno
    import faulthandler

    import bot.app
    from bot.cli import main

    def port_in_use(settings: object) -> None:
        raise OSError(errno.EADDRINUSE, "error while attempting to bind on address ('0.0.0.0', 8443): address "
                                        "already in use")

    for name in [k for k in os.environ if k.startswith(("TELEGRAM_", "CHAODIPI_"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "987654321:AAHdkq3Zx9vTqLwPmN4rS7uYbC2eF5gJ8hK")
    monkeypatch.setenv("CHAODIPI_PUBLIC_URL", "https://bot.example")
    monkeypatch.setattr(bot.app, "run", port_in_use)
    monkeypatch.setattr(faulthandler, "register", lambda *args, **kwargs: None)  # capsys's stderr has no file
    assert main(["run"]) == 1
    err = capsys.readouterr().err
    assert "cannot listen on 0.0.0.0 port 8443" in err and "CHAODIPI_WEBHOOK_PORT" in err, err


def test_the_compiled_engine_without_mypyc_says_what_to_install() -> None:
    """The README's build command after the play install (no mypy, so no mypyc): one sentence, no traceback."""
    script = ("import runpy, sys\n"
              "sys.modules['mypyc'] = None  # as where mypy is not installed\n"
              "sys.argv = ['setup.py', 'build_ext', '--inplace']\n"
              "runpy.run_path('setup.py', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "CHAODIPI_MYPYC": "1"})
    assert done.returncode == 1, done.stderr
    assert "needs mypyc" in done.stderr and ".[test]" in done.stderr and "Traceback" not in done.stderr
