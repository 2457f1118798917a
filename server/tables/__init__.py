"""Tables: the pure coordinator of one table (``table``, with ``seat``, ``seating`` and
``states``) and their shared vocabulary (``coordination``); the lobby's requests (``lobby``,
``lobby_watch``), what one player may hold (``quotas``) and the bots the server hosts (``hosted``).
"""
