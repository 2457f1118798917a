"""SQLite in one file from one writer thread (``db_thread``, ``store`` and the ladder's and
challenges' rows), group commit (``journal``), and what of the live state is written and
rebuilt at start (``durability``, ``persist``, ``record_codec``).
"""
