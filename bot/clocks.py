"""The clocks of a table's timed windows (the bidding, a steal turn), as every message shows them.

A clock shows the table's last reading (:attr:`bot.model.Table.clock`: at the window's start, at each bid,
at its last stretch), never a live countdown: a message redrawn between two readings reads the same, so
the clock costs an edit a reading, not one a second.
"""

from __future__ import annotations

from bot.i18n import Translator
from bot.model import Table


def window_clock(tr: Translator, table: Table, window: str) -> list[str]:
    """「⏳ 亮主还剩 45 秒」 / 「⏳ 抄底还剩 60 秒」: the timed window's clock as last read
    (:attr:`~bot.model.Table.clock`: at its start, at each bid, at its last stretch), never a live
    countdown, so that a redraw between two readings costs no edit."""
    if table.deadline is None or table.clock <= 0:
        return []
    left = clock_span(tr, table.clock)
    if window == "bidding":
        return ["⏳ " + tr("Bidding closes in {left}.", left=left)]
    return ["⏳ " + tr("Steal turn closes in {left}.", left=left)]


def clock_span(tr: Translator, seconds: float) -> str:
    """「45 秒」, 「10 分钟」, 「3 小时」: a clock's reading, in whole seconds under two minutes."""
    left = max(0, int(seconds))
    if left < 120:
        return tr("{s} s", s=left)
    if left < 7200:
        return tr("{m} min", m=left // 60)
    return tr("{h} h", h=left // 3600)
