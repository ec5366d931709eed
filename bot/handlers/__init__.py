"""The Telegram side: one module per kind of input; each handler parses, calls the service, answers.

=================  ==========================================================================
``common``         the service from ``bot_data``, who asks and in which language, paced replies
``throttle``       the command budget (a flood of commands is told once to wait, then answered later)
``seating``        taking a seat, for someone the bot can reach privately
``commands``       /start (deep links), /newgame, /join, /leave, /stop, /hand
``info``           /rules, /stats, /leaderboard, /lang, /help
``group_events``   a group becoming a supergroup
``buttons``        every button press, decoded and handed to one of:
``lobby_buttons``  seats, AI seats, settings, Start on the group's table message
``seat_buttons``   「我回来了」 and the escape question
``hand_buttons``   the private hand keyboard, 🃏 and 「下一局」
``errors``         the error handler
=================  ==========================================================================

Handlers reach the tables only through :class:`bot.tables.Tables` and its
package's face; the wiring (:mod:`bot.app`) registers them.
"""
