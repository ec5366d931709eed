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
    """「45 秒」, 「10 分钟」, 「3 小时」: a clock's reading, in whole seconds under two minutes, else the nearest
    minutes or hours (:func:`_nearest`)."""
    if seconds < 120:
        return tr("{s} s", s=max(0, int(seconds)))
    minutes, hours = _nearest(seconds)
    return tr("{m} min", m=minutes) if hours is None else tr("{h} h", h=hours)


def time_left(tr: Translator, seconds: float) -> str:
    """「（还剩 20 秒）」: seconds under two minutes (the real-time pace), else minutes, else hours.

    Seconds go in steps of ten, rounded up: a message redrawn a few seconds later
    reads the same, so redrawing it costs no edit.  Minutes and hours are the
    nearest (:func:`_nearest`).
    """
    if seconds < 120:
        return tr("({s} s left)", s=-(-max(0, int(seconds)) // 10) * 10)
    minutes, hours = _nearest(seconds)
    return tr("({m} min left)", m=minutes) if hours is None else tr("({h} h left)", h=hours)


def _nearest(seconds: float) -> tuple[int, int | None]:
    """Two minutes or more as the nearest whole minutes under two hours (hours None), else the nearest hours: a
    clock read a moment after its window began, or a reminder sent a moment after its time (3 hours before a
    daily deadline), says the time the pace gives, not the hour or minute less that 2 h 59 min 59 s floors to."""
    minutes = round(seconds / 60)
    return (minutes, None) if minutes < 120 else (minutes, round(seconds / 3600))
