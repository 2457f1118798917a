"""``shithead``, the terminal client (:mod:`client.cli.__main__`): a prompt-toolkit application
(:mod:`~client.cli.app`) over a pure model (:mod:`~client.cli.model`), its drawing
(:mod:`~client.cli.render`, :mod:`~client.cli.draw`, :mod:`~client.cli.words`,
:mod:`~client.cli.history`), its commands (:mod:`~client.cli.commands`) and the seat tokens it
keeps (:mod:`~client.cli.seats`); ``shithead replay`` (:mod:`~client.cli.replay`) and
``shithead watch`` (:mod:`~client.cli.tv`).
"""
