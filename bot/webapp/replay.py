"""A finished hand's replay as the page draws it: the spectator's view at the hand's end, and who sat where.

Who may replay which hand, and the hand rebuilt from the log, are the
service's (:meth:`bot.tables.Tables.replay`); this only shapes its answer.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import Translator
from bot.labels import name_html, seat_label
from bot.tables import Replay
from bot.webapp.state import words


def replay_json(replay: Replay, tr: Translator) -> dict[str, Any]:
    """The replay, JSON-ready (names as HTML, as the state's)."""
    return {"hand_id": replay.hand_id, "view": replay.view.to_dict(), "words": words(tr), "lang": tr.lang,
            "seats": [{"label": seat_label(tr, seat), "name": name_html(name) if name is not None else "🤖 AI"}
                      for seat, name in enumerate(replay.names)]}
