"""The table in one view: a Telegram Mini App served beside the inline keyboard.

Enabled by ``CHAODIPI_PUBLIC_URL`` (see ``docs/webapp.md``): the bot's HTTP
server (:mod:`bot.webhook`) serves the page and its API
(:mod:`bot.webapp.routes`) under ``/app``.  Requests are proven by Telegram's
``initData`` (:mod:`bot.webapp.initdata`) and checked before use
(:mod:`bot.webapp.inputs`); each seat sees only its engine view
(:mod:`bot.webapp.state`), and only while its person holds the seat: a live
stream (:mod:`bot.webapp.events`, opened with a ticket of
:mod:`bot.webapp.streams`) ends the moment they stop; moves take the
keyboard's path (:meth:`bot.tables.Tables.move`); finished hands replay from
the log, for the people who played them (:meth:`bot.tables.Tables.replay`,
:mod:`bot.webapp.replay`); every answer carries the headers of
:mod:`bot.webapp.headers`.  The wiring (:mod:`bot.app`) mounts the routes.
"""
