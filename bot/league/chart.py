"""The league's picture: each ranked player's 积分 over the season's hands, and the standings table, as a PNG.

Drawn with matplotlib's Agg backend (no display, no pyplot's global state:
one :class:`~matplotlib.figure.Figure` per picture) in the font shipped in
``bot/league/fonts/`` (a subset of Noto Sans CJK SC: every character of GB
2312, so Chinese names render everywhere, the Docker image included),
falling back glyph by glyph to matplotlib's own DejaVu Sans; a character
neither has (an emoji in a name) is left out rather than drawn as a box.
The picture is 1200 pixels wide and grows with the table (1 player: about
770 pixels high, 20: about 1500); it is cut to 256 colours, which keeps
it well under 200 KB.  Everything it shows comes in a :class:`ChartData`:
this module counts nothing and translates nothing.
"""

from __future__ import annotations

import io
import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Final

from bot.untrusted import shown

if TYPE_CHECKING:  # matplotlib is imported when the first picture is drawn, not when the bot starts
    from collections.abc import Callable

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FONT_FILE: Final = "ChaodipiSansSC-Regular.otf"
WIDTH_IN: Final = 10.0
DPI: Final = 120
CHART_IN: Final = 4.4
"""Height of the line chart, in inches."""
ROW_IN: Final = 0.3
"""Height of a row of the table."""
TOP_IN: Final = 0.95
BOTTOM_IN: Final = 0.75
MAX_POINTS: Final = 800
"""Points drawn per line at most: a long stretch is sampled (every player's last point kept)."""
MAX_NAME: Final = 14
"""Characters of a name drawn, at most."""

_DRAWING = threading.Lock()
"""One picture at a time: matplotlib's font objects are shared and not safe to use from two threads."""


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the standings table as drawn: ``place`` None below the line (not ranked)."""

    place: int | None
    name: str
    cells: tuple[str, ...]
    """The figures after the name, as text (积分 first)."""
    colour: int | None = None
    """Index of the player's line in :attr:`ChartData.lines` (its colour), if it has one."""


@dataclass(frozen=True, slots=True)
class Line:
    """A ranked player's 积分 after each of the stretch's hands (``points[i]`` after hand ``i + 1``)."""

    name: str
    points: tuple[int, ...]
    hands: tuple[int, ...] = ()
    """The hand (from 1) of each point, when the line is sampled already; empty: ``points[i]`` is after hand ``i + 1``."""


@dataclass(frozen=True, slots=True)
class ChartData:
    """Everything the picture shows, already worded in the group's language."""

    title: str
    subtitle: str
    x_label: str
    y_label: str
    headers: tuple[str, ...]
    """The table's column titles: place, name, then one per cell of a :class:`Row`."""
    lines: tuple[Line, ...]
    rows: tuple[Row, ...]
    below_line: str
    """The words on the line above the people who are not ranked (shown only if there are any)."""
    footer: tuple[str, ...]
    """Lines under the table: the champions, the ranking rule."""
    empty: str = ""
    """Shown in the chart's place when there is no line to draw."""


def render(data: ChartData) -> bytes:
    """The picture as PNG bytes (call it in a worker thread: it takes a tenth of a second or more)."""
    with _DRAWING:
        return _render(data)


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height of a PNG, read from its header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def drawable(name: str) -> str:
    """The name with only characters the fonts have (an emoji is dropped), shortened; ``?`` if nothing is left."""
    kept = _drawn(name)
    if len(kept) > MAX_NAME:
        kept = kept[: MAX_NAME - 1] + "…"
    return kept or "?"


def _drawn(text: str) -> str:
    """The text without bidi and control characters, nor the characters neither font has (they would be drawn
    as empty boxes).  ``$`` stays: the picture is drawn with mathtext off (:func:`_render`)."""
    covered = _covered()
    return " ".join("".join(ch for ch in shown(text) if ord(ch) in covered or ch == " ").split())


@lru_cache(maxsize=1)
def _font_path() -> str:
    return str(resources.files("bot.league").joinpath("fonts").joinpath(FONT_FILE))


@lru_cache(maxsize=1)
def _covered() -> frozenset[int]:
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    fallback = font_manager.findfont("DejaVu Sans", fallback_to_default=True)
    return frozenset(FT2Font(_font_path()).get_charmap()) | frozenset(FT2Font(fallback).get_charmap())


@lru_cache(maxsize=1)
def _family() -> list[str]:
    from matplotlib import font_manager

    font_manager.fontManager.addfont(_font_path())
    name = font_manager.FontProperties(fname=_font_path()).get_name()
    return [name, "DejaVu Sans"]


def _sampled(line: Line) -> tuple[list[int], list[int]]:
    """x (1-based hand numbers) and y, at most :data:`MAX_POINTS` of them, the last always kept."""
    points = line.points
    if line.hands:
        return list(line.hands), list(points)
    n = len(points)
    if n <= MAX_POINTS:
        return list(range(1, n + 1)), list(points)
    step = n / MAX_POINTS
    xs = sorted({int(i * step) for i in range(MAX_POINTS)} | {n - 1})
    return [x + 1 for x in xs], [points[x] for x in xs]


def _colours(n: int) -> list[tuple[float, float, float, float]]:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def _render(data: ChartData) -> bytes:
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from PIL import Image

    unranked = any(row.place is None for row in data.rows)
    table_in = ROW_IN * (len(data.rows) + 1 + (1 if unranked else 0))
    height_in = TOP_IN + CHART_IN + 0.52 + table_in + 0.15 + 0.28 * len(data.footer) + BOTTOM_IN * 0.4
    # text.parse_math off: names, titles and season names are people's words, and matplotlib would read a
    # name like $\x$ as maths and raise (every text of the picture goes through fig.text / axes.text).
    with rc_context({"font.family": _family(), "font.size": 11, "axes.unicode_minus": True,
                     "text.parse_math": False, "text.usetex": False}):
        fig = Figure(figsize=(WIDTH_IN, height_in), dpi=DPI, facecolor="white")
        FigureCanvasAgg(fig)

        def y_of(inches_from_top: float) -> float:
            return 1 - inches_from_top / height_in

        fig.text(0.04, y_of(0.42), _drawn(data.title), fontsize=19, color="#1a1a1a", va="center")
        fig.text(0.04, y_of(0.75), _drawn(data.subtitle), fontsize=11, color="#666666", va="center")
        colours = _colours(len(data.lines))
        axes = fig.add_axes((0.08, y_of(TOP_IN + CHART_IN), 0.74, CHART_IN / height_in))
        _draw_lines(axes, data, colours)
        _draw_table(fig, data, colours, TOP_IN + CHART_IN + 0.62, y_of)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=DPI, facecolor="white")
    # 256 colours are plenty for flat lines and text, and make the file several times smaller.
    image = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB").quantize(colors=256,
                                                                             method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _draw_lines(axes: Axes, data: ChartData, colours: Sequence[tuple[float, float, float, float]]) -> None:
    from matplotlib.transforms import offset_copy

    axes.set_facecolor("#fafafa")
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    axes.grid(True, color="#e4e4e4", linewidth=0.8)
    axes.set_xlabel(data.x_label, color="#555555")
    axes.set_ylabel(data.y_label, color="#555555")
    if not data.lines:
        axes.text(0.5, 0.5, data.empty, transform=axes.transAxes, ha="center", va="center", fontsize=14,
                  color="#888888")
        axes.set_xticks([])
        axes.set_yticks([])
        return
    axes.axhline(0, color="#bbbbbb", linewidth=1.0)
    ends: list[tuple[float, int]] = []
    last_x = 1
    for index, (line, colour) in enumerate(zip(data.lines, colours)):
        xs, ys = _sampled(line)
        # Hand i is the step from i − 1 to i, at the 积分 after it: the last hand is as wide as any other
        # (drawn "post" from i, it was a tick at the chart's edge).
        axes.step([0] + xs, [0] + ys, where="pre", color=colour, linewidth=2.2 if index < 3 else 1.5,
                  zorder=3 + index)
        ends.append((float(ys[-1]), index))
        last_x = max(last_x, xs[-1])
    axes.set_xlim(0, last_x)
    low, high = axes.get_ylim()
    # The names at the lines' ends, nudged apart so that none covers another.
    gap = (high - low) / 22
    beside = offset_copy(axes.transData, fig=axes.get_figure(root=True), x=6, units="points")
    ends.sort()
    placed: list[float] = []
    for value, _index in ends:  # upwards from the lowest, each at least a gap above the one below
        placed.append(max(value, placed[-1] + gap) if placed else value)
    if placed and placed[-1] > high:  # then down from the top, so that none leaves the chart
        placed[-1] = high
        for i in range(len(placed) - 2, -1, -1):
            placed[i] = min(placed[i], placed[i + 1] - gap)
    for y, (_value, index) in zip(placed, ends):
        axes.text(last_x, y, drawable(data.lines[index].name), transform=beside, va="center", fontsize=10,
                  color=colours[index], clip_on=False)


def _draw_table(fig: Figure, data: ChartData, colours: Sequence[tuple[float, float, float, float]],
                top_in: float, y_of: Callable[[float], float]) -> None:
    from matplotlib.patches import Rectangle

    cells = len(data.headers) - 2
    xs = [0.05, 0.10] + [0.44 + i * (0.51 / max(cells, 1)) for i in range(1, cells + 1)]
    at = top_in
    for column, header in enumerate(data.headers):
        fig.text(xs[column], y_of(at), _drawn(header), fontsize=10.5, color="#666666", va="center",
                 ha="left" if column < 2 else "right")
    at += ROW_IN
    shown_line = False
    for number, row in enumerate(data.rows):
        if row.place is None and not shown_line:
            shown_line = True
            fig.add_artist(Rectangle((0.04, y_of(at - 0.02)), 0.92, 0.0015, transform=fig.transFigure,
                                     color="#999999"))
            fig.text(0.05, y_of(at + 0.05), _drawn(data.below_line), fontsize=9.5, color="#888888", va="center")
            at += ROW_IN + 0.05
        if number % 2 == 0:
            fig.add_artist(Rectangle((0.04, y_of(at + ROW_IN / 2)), 0.92, ROW_IN / fig.get_figheight(),
                                     transform=fig.transFigure, color="#f3f5f8", zorder=0))
        grey = row.place is None
        text_colour = "#999999" if grey else "#1a1a1a"
        fig.text(xs[0], y_of(at), "" if row.place is None else str(row.place), fontsize=11, color=text_colour,
                 va="center")
        if row.colour is not None:
            fig.add_artist(Rectangle((xs[1] - 0.005, y_of(at + 0.06)), 0.012, 0.12 / fig.get_figheight(),
                                     transform=fig.transFigure, color=colours[row.colour]))
        fig.text(xs[1] + 0.015, y_of(at), drawable(row.name), fontsize=11.5, color=text_colour, va="center")
        for column, cell in enumerate(row.cells, start=2):
            fig.text(xs[column], y_of(at), _drawn(cell), fontsize=11.5, color=text_colour, va="center", ha="right")
        at += ROW_IN
    at += 0.2
    for line in data.footer:
        fig.text(0.05, y_of(at), _drawn(line), fontsize=10.5, color="#444444", va="center")
        at += 0.28
