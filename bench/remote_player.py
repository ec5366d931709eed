"""An AI player from another checkout of the engine, in its own process: today's strong player, frozen, to compare against.

The strong player of the tag ``strong-2026-12-05`` is compared with the
product's without copying its code into the product: a ``git worktree`` of
the tag holds it, and this module runs it in a child process whose
``sys.path`` starts at that worktree, so that there ``engine`` is the old
package.  The parent sends each view and the ruleset's name (pickled:
the view's classes are the same in both versions of the engine, which
issue 47 left unchanged) and reads back the action::

    git worktree add --detach /work/wt-strong-old strong-2026-12-05
    old = RemotePlayer("/work/wt-strong-old")
    action = old(view_for(hand, seat), hand.ruleset)
    old.close()

The child measures the strong player's budget in its own CPU time, and
reports the CPU seconds of each decision (:attr:`RemotePlayer.times`).
Run as a script it is that child: ``python bench/remote_player.py ROOT
[--player strong|heuristic|casual] [--budget SECONDS]`` (``heuristic``: the
strong player's heuristics alone, no search), reading requests on standard
input.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import pickle
import subprocess
import sys
import time
from typing import IO, Any

_HEADER = 8


def _send(stream: IO[bytes], obj: object) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(len(data).to_bytes(_HEADER, "little") + data)
    stream.flush()


_HOMES = ("engine.hand", "engine.scoring", "engine.special", "engine.notices", "engine.bidding", "engine.views")
"""The engine's modules where a class that moved between the two checkouts may be found (``Adjustment`` was
``engine.hand``'s on 5 December, ``engine.scoring``'s since)."""


class _Unpickler(pickle.Unpickler):
    """An unpickler that finds a class the other checkout keeps in another module of the engine."""

    def find_class(self, module: str, name: str) -> Any:
        try:
            return super().find_class(module, name)
        except AttributeError:
            for home in _HOMES:
                found = getattr(importlib.import_module(home), name, None)
                if isinstance(found, type):
                    return found
            raise


def _receive(stream: IO[bytes]) -> Any:
    header = stream.read(_HEADER)
    if len(header) < _HEADER:
        raise EOFError("the other side closed the pipe")
    return _Unpickler(io.BytesIO(stream.read(int.from_bytes(header, "little")))).load()


class RemotePlayer:
    """A player (the :data:`engine.ai.Player` signature) whose decisions another checkout's engine makes."""

    def __init__(self, root: str, player: str = "strong", budget: float | None = None) -> None:
        command = [sys.executable, os.path.abspath(__file__), os.path.abspath(root), "--player", player]
        if budget is not None:
            command += ["--budget", repr(budget)]
        self._child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.times: list[tuple[str, float]] = []
        """(phase, CPU seconds) of each decision, in the child."""

    def __call__(self, view: Any, ruleset: Any, rng: Any = None) -> Any:
        """The child's action for this view (the ruleset travels by name: it must be one of the presets)."""
        assert self._child.stdin is not None and self._child.stdout is not None
        _send(self._child.stdin, (view, ruleset.name))
        action, seconds = _receive(self._child.stdout)
        self.times.append((view.phase, seconds))
        return action

    def close(self) -> None:
        """End the child process."""
        if self._child.stdin is not None:
            self._child.stdin.close()
        self._child.wait(timeout=60)


def serve(root: str, player_name: str, budget: float | None) -> None:
    """Answer requests on standard input with the player of the engine found at ``root``."""
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but answers on the pipe
    sys.path.insert(0, root)
    from engine.ai import DEFAULT_BUDGET, casual_action, strong_player
    from engine.ruleset import RULESETS

    strong = strong_player(budget=DEFAULT_BUDGET if budget is None else budget, clock=time.process_time)
    players = {"strong": strong, "heuristic": strong_player(deals=0), "casual": casual_action}
    player = players[player_name]
    while True:
        try:
            view, name = _receive(requests)
        except EOFError:
            return
        started = time.process_time()
        action = player(view, RULESETS[name], None)
        _send(answers, (action, time.process_time() - started))


def main() -> None:
    """The child's command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", help="the checkout whose engine package decides")
    parser.add_argument("--player", choices=("strong", "heuristic", "casual"), default="strong")
    parser.add_argument("--budget", type=float, default=None)
    args = parser.parse_args()
    serve(args.root, args.player, args.budget)


if __name__ == "__main__":
    main()
