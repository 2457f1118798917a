"""Hosting a bot: everything that runs a :class:`client.bot.Bot` against a server.

* :mod:`~client.hosting.host`: one bot's life, top to bottom (connect and log in, take the seat
  or enter the tournament / ladder, play, report), the one way every host runs a bot;
* :mod:`~client.hosting.options`: what a host is told (login, seating, games; the server's
  requests for its own bots);
* :mod:`~client.hosting.bot_runner`: the loop that plays one seat;
* :mod:`~client.hosting.tournament_player`, :mod:`~client.hosting.ladder_player`: play every table
  a tournament or the ladder seats the bot at, one loop per table;
* :mod:`~client.hosting.command`: ``shithead-bot``, the command line;
* :mod:`~client.hosting.house`, :mod:`~client.hosting.house_process`: the server's own bots, in
  child processes of the server (the server's ``BotHost``).
"""
