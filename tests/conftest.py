"""Suite-wide: the tests marked ``long`` run first.

A ``long`` test takes ten seconds or more, most of it usually spent waiting
on a real clock (a hand at human pace, Telegram's flood windows, a process
starting).  Started first, they wait while the many short tests use the
cores; started last, the whole run would wait for them at the end.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "long: takes ten seconds or more of wall clock; scheduled first")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable: otherwise in file order
