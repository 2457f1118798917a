"""Records of finished games: ``get_record`` reads one from the database (on the writer thread)."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from protocol.errors import ErrorCode
from protocol.messages import GetRecord, Record
from protocol.payloads import StoredGame
from server.coordination import Session, TableError
from server.durability import StoreCalls
from server.reply import Reply
from server.store import Store


class Records:
    """Answers ``get_record``; ``store`` gives the open store."""

    def __init__(self, *, db: StoreCalls, store: Callable[[], Store]) -> None:
        self.db = db
        self.store = store

    def get_record(self, s: Session, msg: GetRecord) -> Reply:
        async def fetch() -> Record:
            game = await self.db(self.store().game, msg.game)
            if game is None:
                raise TableError(ErrorCode.UNKNOWN_GAME, f"no finished game {msg.game}")
            return Record(id=msg.id, record=cast(StoredGame, game))  # as the store wrote it

        return Reply(later=fetch())
