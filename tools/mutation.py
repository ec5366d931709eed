"""Mutation testing of one module against the tests that exercise it (a periodic job, not every CI run).

    python3 -m venv /tmp/mutenv && /tmp/mutenv/bin/pip install mutmut==3.8.1 -c constraints.txt -e '.[test]'
    nice -n 10 /tmp/mutenv/bin/python tools/mutation.py engine/views.py          # score one module
    nice -n 10 /tmp/mutenv/bin/python tools/mutation.py engine/views.py --survivors   # and list what lived

It copies the files of this checkout (as they are on disk) to /tmp/mut-<module>, so mutmut's
``mutants/`` directory stays out of the source tree; narrows pyproject's ``[tool.mutmut]`` to the module
(``only_mutate``) and to the test files named below (mutmut runs every selected test once to learn which
tests reach which function, so the whole unit suite would cost minutes before the first mutant); runs
``mutmut run`` with two workers, and prints killed / tested.  Every run starts from a new copy: mutmut would
otherwise keep the verdicts of mutants whose function did not change, though the tests did.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The tests that exercise each module directly.  The AI's tests also reach engine/views.py (a view per
# decision of every rollout) but take minutes, and test what the AI chooses, not what a view shows.
TESTS: dict[str, list[str]] = {
    "engine/views.py": [
        "tests/engine/test_hand_views.py", "tests/engine/test_notices.py", "tests/engine/test_hand_bury_steal.py",
        "tests/engine/test_hand_nobid.py", "tests/engine/test_hand_bidding.py",
    ],
    "engine/throws.py": [
        "tests/engine/test_throws.py", "tests/engine/test_tractor_ties.py", "tests/engine/test_worked_examples.py",
        "tests/engine/test_notices.py", "tests/engine/test_scenarios_play.py",
    ],
    "engine/special.py": [
        "tests/engine/test_scoring.py", "tests/engine/test_scenarios_end.py", "tests/engine/test_match.py",
        "tests/engine/test_special.py", "tests/engine/test_worked_examples.py", "tests/engine/test_ruleset.py",
        "tests/engine/test_throws.py",
    ],
    "bot/model.py": [
        "tests/bot/test_model.py", "tests/bot/test_model_clock.py", "tests/bot/test_versions.py",
        "tests/bot/test_new_table_settings.py",
        "tests/bot/test_hand_buttons.py", "tests/bot/test_hand_presses.py", "tests/bot/test_render_group.py",
        "tests/bot/test_render_private.py", "tests/bot/test_table_status.py", "tests/bot/test_thinking_line.py",
    ],
    "bot/webapp/initdata.py": ["tests/bot/webapp/test_initdata.py"],
    "bot/untrusted.py": ["tests/bot/test_untrusted.py", "tests/bot/test_hostile_names.py",
                         "tests/bot/webapp/test_inputs.py"],
    # The handlers are driven mostly by the end-to-end tests (the fake Telegram), too slow to run per mutant;
    # these are the unit tests that reach them.
    "bot/handlers/common.py": [
        "tests/bot/test_handlers_common.py", "tests/bot/test_deep_links.py", "tests/bot/test_hand_buttons.py",
        "tests/bot/test_table_status.py", "tests/bot/test_late_answers.py", "tests/bot/test_league.py",
        "tests/bot/test_league_members.py",
    ],
    "bot/handlers/hand_buttons.py": [
        "tests/bot/test_hand_presses.py", "tests/bot/test_hand_buttons.py", "tests/bot/test_table_status.py", "tests/bot/test_late_answers.py",
    ],
}


def copy_tree(target: Path) -> None:
    """The checkout's files as they are on disk (new and edited ones too), without what git ignores (.venv,
    mutants/, caches, databases)."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           check=True, capture_output=True).stdout
    for name in files.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)


def narrow_config(target: Path, module: str, tests: list[str]) -> None:
    """pyproject's [tool.mutmut], mutating only ``module`` and selecting only ``tests``."""
    path = target / "pyproject.toml"
    text = path.read_text("utf-8")
    text, n = re.subn(r"^pytest_add_cli_args_test_selection = .*$",
                      f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\nonly_mutate = {json.dumps([module])}",
                      text, count=1, flags=re.M)
    if n != 1:
        sys.exit("pyproject.toml has no [tool.mutmut] pytest_add_cli_args_test_selection line to narrow")
    path.write_text(text, "utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("module", choices=sorted(TESTS))
    parser.add_argument("--survivors", action="store_true", help="list the mutants that survived")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    mutmut = Path(sys.executable).with_name("mutmut")
    if not mutmut.exists():
        sys.exit(f"no mutmut beside {sys.executable}: pip install mutmut==3.8.1 into that environment")
    target = Path("/tmp") / ("mut-" + args.module.replace("/", "-").removesuffix(".py"))
    if target.exists():
        shutil.rmtree(target)
    target.mkdir()
    copy_tree(target)
    tests = [name for name in TESTS[args.module] if (ROOT / name).exists()]
    for name in sorted(set(TESTS[args.module]) - set(tests)):
        print(f"(no {name} in this checkout: left out)")
    narrow_config(target, args.module, tests)
    run = subprocess.run([mutmut, "run", "--max-children", str(args.workers)], cwd=target, check=False)
    if run.returncode != 0:
        sys.exit(f"mutmut run failed (exit {run.returncode}) in {target}")
    subprocess.run([mutmut, "export-cicd-stats"], cwd=target, check=True, capture_output=True)
    stats = json.loads((target / "mutants" / "mutmut-cicd-stats.json").read_text())
    tested = stats["total"] - stats.get("skipped", 0)
    print(f"{args.module}: {stats['killed'] + stats.get('timeout', 0)}/{tested} killed  ({json.dumps(stats)})")
    if args.survivors:
        subprocess.run([mutmut, "results"], cwd=target, check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
