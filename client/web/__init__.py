"""The browser client: static files (HTML, CSS, JavaScript modules; no build step) that the
server serves on its own port (``server.shell.web``) and that speak the protocol over its WebSocket.

:data:`ROOT` is where they are and :data:`FILES` which they are; the composition root
(``server.__main__``) gives them to the server together with :func:`generated_files`, the files
that depend on the running server.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

import segno

from server.engine import preset_info
from server.engine.option_forms import option_forms, preset_values

ROOT = Path(__file__).resolve().parent

FILES: tuple[str, ...] = (
    "index.html",
    "tv.html",
    "replay.html",
    "ladder.html",
    "bot.html",
    "tournament.html",
    "style.css",
    "pages.css",
    "manifest.webmanifest",
    "icon.svg",
    "js/alert.js",
    "js/app.js",
    "js/bot.js",
    "js/cards.js",
    "js/feed.js",
    "js/house_rules.js",
    "js/invite.js",
    "js/ladder.js",
    "js/ladder_view.js",
    "js/lobby.js",
    "js/model.js",
    "js/names.js",
    "js/net.js",
    "js/qr.js",
    "js/reasons.js",
    "js/replay.js",
    "js/replay_steps.js",
    "js/seating.js",
    "js/table.js",
    "js/tournament.js",
    "js/tournament_view.js",
    "js/tv.js",
    "js/ui.js",
    "js/viewer.js",
    "js/wake.js",
)
"""The files the server serves (paths under :data:`ROOT`): this list and nothing else, so a file
left or planted in the directory is never served (tests/client/test_web_files.py holds it to
the directory: a new file of the client is added here)."""


def join_qr(url: str) -> segno.QRCode:
    """The QR code of the address a guest opens on a phone."""
    return segno.make(url, error="m")


def preset_entry(name: str) -> dict[str, object]:
    """What the page shows of a preset of the engine's catalogue: its name, its one-line
    description, how many players it allows (the seats the page offers) and the values of the
    options a form offers (the house-rules controls start from them)."""
    p = preset_info(name)
    return {
        "name": p.name,
        "description": p.description,
        "min_players": p.min_players,
        "max_players": p.max_players,
        "values": preset_values(name),
    }


def generated_files(join_url: str, presets: Sequence[str], bots: Sequence[str]) -> dict[str, tuple[str, bytes]]:
    """``path -> (content type, body)``: ``/catalog.json`` (the presets to offer, each with its
    description, player range and option values from the engine's catalogue; the options a form
    offers (:func:`server.engine.option_forms.option_forms`); the bots; the address to join)
    and ``/join.svg`` (its QR code, shown in the lobby for the next guest)."""
    catalog = {
        "presets": [preset_entry(name) for name in presets],
        "options": option_forms(),
        "bots": list(bots),
        "join": join_url,
    }
    svg = io.BytesIO()
    join_qr(join_url).save(svg, kind="svg", scale=4, border=2, xmldecl=False)
    return {
        "/catalog.json": ("application/json; charset=utf-8", json.dumps(catalog).encode()),
        "/join.svg": ("image/svg+xml; charset=utf-8", svg.getvalue()),
    }
