"""The browser client: static files (HTML, CSS, JavaScript modules; no build step) that the
server serves on its own port (``server.web``) and that speak the protocol over its WebSocket.

:data:`ROOT` is where they are; the composition root (``server.__main__``) gives it to the server.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parent
