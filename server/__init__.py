"""Shithead game server: the rules engine and (later) the asyncio server."""
