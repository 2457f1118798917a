"""Shithead's clients: everything that talks to a server over the protocol.

Subpackages:

* :mod:`client.sdk`: the asyncio client SDK (:class:`client.sdk.Client`), which every client
  below is built on;
* :mod:`client.hosting`: hosting a bot (one bot's life, the seat's loop, tournament and ladder
  players, ``shithead-bot``, the server's own bots in their child processes);
* :mod:`client.bots`: the catalogue of bundled bots and the bots themselves;
* :mod:`client.cli`: ``shithead``, the terminal client (play, replay, watch);
* :mod:`client.web`: the browser client's static files (served by the server);
* :mod:`client.tournament`: ``shithead-tournament``, the organiser of tournaments;
* :mod:`client.botcheck`: ``shithead-bot-check``, a bot author's rehearsal;
* :mod:`client.rl`: the learning environment (PettingZoo) over the engine.

Modules: :mod:`client.bot` (the bot interface), :mod:`client.discovery` (finding servers on the
LAN), :mod:`client.eventloop` (uvloop when installed), :mod:`client.programs` (child processes:
a private server, bot programs) and :mod:`client.record_files` (game record files).
"""
