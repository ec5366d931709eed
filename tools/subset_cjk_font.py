"""Make the chart's font: Noto Sans CJK SC Regular cut down to the characters a league chart needs.

The bot draws its league charts with this font (``bot/league/fonts/``), so Chinese names render the same
everywhere, the Docker image included, without relying on a system font.  Kept: every character of
GB 2312 (its 6,763 hanzi cover the names of almost every mainland player), ASCII and Latin-1, general
punctuation, CJK punctuation and full-width forms, and the few symbols the chart draws.  Dropped:
everything else, the vertical-writing tables and hinting.  The font is under the SIL Open Font License
1.1 (``OFL.txt`` beside it); the cut-down copy is a Modified Version and so gets a family name of its
own (``Chaodipi Sans SC``), as the licence and its FAQ ask.

Run it where Debian's ``fonts-noto-cjk`` is installed, with fontTools (``pip install fonttools``)::

    python tools/subset_cjk_font.py [/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc]

It is not run by the tests or the build: its output is committed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
SC_INDEX = 2
"""Noto Sans CJK SC in the collection (JP, KR, SC, TC, HK, then the Mono faces)."""
OUT = Path(__file__).resolve().parents[1] / "bot" / "league" / "fonts" / "ChaodipiSansSC-Regular.otf"
FAMILY = "Chaodipi Sans SC"
SYMBOLS = "·•—–−―…★☆▲▼△▽↑↓→←♠♥♦♣●○■□✓×÷±°％"


def characters() -> set[int]:
    """The code points kept."""
    keep: set[int] = set(range(0x20, 0x7F)) | set(range(0xA0, 0x100))
    keep |= set(range(0x2000, 0x2070))  # general punctuation
    keep |= set(range(0x3000, 0x3040))  # CJK symbols and punctuation
    keep |= set(range(0xFF00, 0xFFF0))  # full-width and half-width forms
    keep |= {ord(c) for c in SYMBOLS}
    for first in range(0xB0, 0xF8):  # GB 2312's hanzi rows
        for second in range(0xA1, 0xFF):
            try:
                keep.add(ord(bytes((first, second)).decode("gb2312")))
            except UnicodeDecodeError:
                pass
    for first in range(0xA1, 0xAA):  # its symbol rows (full-width letters, punctuation, ①…)
        for second in range(0xA1, 0xFF):
            try:
                keep.add(ord(bytes((first, second)).decode("gb2312")))
            except UnicodeDecodeError:
                pass
    return keep


def main(source: Path = SOURCE) -> None:
    """Write :data:`OUT`."""
    font = TTCollection(str(source)).fonts[SC_INDEX]
    options = subset.Options()
    options.layout_features = []  # the chart does no shaping: no alternates to keep
    options.hinting = False
    options.drop_tables += ["VORG", "vhea", "vmtx", "BASE"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    options.name_languages = [0x409]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(characters()))
    subsetter.subset(font)
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 4):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 3:
            names.setName("2.004;Chaodipi Sans SC subset of Noto Sans CJK SC", 3, record.platformID,
                          record.platEncID, record.langID)
        elif record.nameID == 6:
            names.setName("ChaodipiSansSC-Regular", 6, record.platformID, record.platEncID, record.langID)
    if "CFF " in font:  # the PostScript name inside the CFF table too
        cff = font["CFF "].cff
        cff.fontNames = ["ChaodipiSansSC-Regular"]
        top = cff.topDictIndex[0]
        top.FullName = FAMILY
        top.FamilyName = FAMILY
    OUT.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(OUT))
    print(f"{OUT}: {OUT.stat().st_size} bytes, {len(font.getGlyphOrder())} glyphs")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else SOURCE)
