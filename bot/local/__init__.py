"""``chaodipi play``: the bot's own service in a browser, with no Telegram and no token.

==========  ======================================================================================
``sink``    a Bot API that goes nowhere (:class:`~bot.local.sink.BotApiSink`): what the bot talks to
``play``    the service, the local table and the page's addresses (:func:`~bot.local.play.playing`)
==========  ======================================================================================

Nothing of the bot imports this package but the command line.
"""
