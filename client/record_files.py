"""Game record files: a finished game's record (the ``record`` message's map) as a file.

Written gzip-compressed, ``N.json.gz`` (a tournament's ``records/``): a record's JSON repeats
card and action names and compresses to about a fifth, and every tool reads gzip (``zcat
records/7.json.gz | jq .``). Read either way: plain JSON files, as earlier versions wrote them
and as a user may save them by hand, load as well.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

__all__ = ["SUFFIX", "load_record", "save_record"]

#: The name ending of the files :func:`save_record` writes.
SUFFIX = ".json.gz"

_GZIP_MAGIC = b"\x1f\x8b"


def save_record(path: Path, record: Any) -> None:
    """Write ``record`` to ``path`` compressed, atomically (a crash leaves the old file or
    none, never half of one)."""
    data = gzip.compress(json.dumps(record, separators=(",", ":")).encode(), compresslevel=9, mtime=0)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def load_record(path: Path) -> Any:
    """The JSON value in a record file, compressed or not. Raises ``OSError`` (cannot be
    read), ``ValueError`` (not gzip nor JSON; ``json.JSONDecodeError`` is one)."""
    raw = path.read_bytes()
    if raw.startswith(_GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise ValueError(f"damaged gzip data: {exc}") from None
    return json.loads(raw)
