"""Shithead client: SDK, bundled bots and the terminal client (to come)."""
