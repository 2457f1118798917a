"""The Shithead game server: the rules engine and the asyncio server around it.

Subpackages, bottom up (docs/ARCHITECTURE.md, "Layers"): ``engine`` (the rules, pure), ``tables``
(the coordinators of tables and the lobby), ``login`` (accounts and identities), ``records``
(finished games read back), ``tournament`` and ``ladder`` (bots' competitions), ``storage`` (SQLite,
the journal, restore at start) and ``shell`` (sockets, sessions, dispatch, timers: the server put
together). ``python -m server`` starts it.
"""
