"""What an operator sees when Telegram refuses the token: one sentence, and never the token.

``chaodipi run`` runs as its own process against the fake server, which
answers 401 to any token but its own.  Everything the process writes
(stdout and stderr, at every log level) is scanned for the token.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from .fake_telegram import FakeTelegram

ROOT = Path(__file__).resolve().parents[2]
REFUSED = "7000000001:AAHrefusedSecretPartOfTheTokenXyz123"


async def _run(server: FakeTelegram, tmp_path: Path, *args: str, **env: str) -> tuple[int, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "CHAODIPI_"))}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", *args, cwd=ROOT,
        env={**base, "PYTHONPATH": str(ROOT), "TELEGRAM_BOT_TOKEN": REFUSED, "TELEGRAM_BASE_URL": server.base_url,
             "CHAODIPI_DB": str(tmp_path / "chaodipi.db"), **env},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode() + err.decode()


async def test_a_refused_token_is_one_sentence_and_never_printed(fake_telegram: FakeTelegram,
                                                                 tmp_path: Path) -> None:
    status, output = await _run(fake_telegram, tmp_path)
    assert status == 2
    assert output.strip() == "chaodipi run: Telegram refused TELEGRAM_BOT_TOKEN; copy it again from @BotFather."
    assert "AAHrefused" not in output


@pytest.mark.parametrize(("how", "env"), [
    (("--verbose",), {}),
    ((), {"CHAODIPI_LOG_LEVEL": "DEBUG"}),
    (("--verbose",), {"CHAODIPI_LOG_FORMAT": "json"}),
])
async def test_the_verbose_output_shows_the_traceback_without_the_token(fake_telegram: FakeTelegram, tmp_path: Path,
                                                                       how: tuple[str, ...], env: dict[str, str]) -> None:
    status, output = await _run(fake_telegram, tmp_path, *how, **env)
    assert status == 2
    assert "Traceback" in output and "InvalidToken" in output  # the rest is there for whoever debugs
    assert "AAHrefused" not in output and REFUSED not in output
    assert "7000000001:***" in output
