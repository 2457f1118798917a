"""The asyncio shell: the server put together (``app``), one session per connection
(``session``), each request to its handler (``dispatch``, ``reply``), the web door (``web``),
periodic work (``sweeper``), settings (``config``) and the LAN (``net``, ``advertise``).
"""
