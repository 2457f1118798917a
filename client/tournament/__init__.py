"""``shithead-tournament``, a client of the server: the organiser that creates a tournament over
the protocol, brings its participants in and writes the results (CSV, records, standings).

The schedule, the standings and the director's bookkeeping are pure computations shared with the
server's tournament service; they live in :mod:`server.tournament` and are the only modules of
``server`` besides the engine that the client may import (``docs/ARCHITECTURE.md``).
"""
