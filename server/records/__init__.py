"""Finished games read back: ``get_record`` and ``get_replay`` (``requests``) and a record's
open positions step by step (``replays``).
"""
