"""A group's league: seasons, standings people would rather look at than read, history and personal stats.

==============  ===================================================================================
``seasons``     the seasons as people read them (names, dates), and the watcher that ends each
                one on time and tells the group its final table and champions (the outbox)
``standings``   the ranking rule (积分, the minimum of hands, the tie-breaks) and the tables as text
``chart``       the picture: each ranked player's 积分 over the season's hands and the table (PNG)
``pictures``    the picture's words and data for a stretch, and the cache of pictures, tables and league
                pages (until the group's next hand ends)
``board``       :class:`League`: /leaderboard's answer, a season's end, drawing ahead
``personal``    /stats: a person's league in a group, or in every group they play in
``history``     /history: the group's last matches, with a replay link per hand
==============  ===================================================================================

Every figure is counted by :mod:`storage` from the stored results; nothing
here keeps a figure of its own but that cache.
"""
