"""Records of finished games: ``get_record`` reads one from the database (on the writer thread);
``get_replay`` gives its open positions, step by step (:mod:`server.records.replays`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from protocol.errors import ErrorCode
from protocol.messages import GetRecord, GetReplay, Record, Replay
from protocol.payloads import StoredGame
from server.records.replays import GameReplay, ReplayCache
from server.shell.reply import Reply
from server.storage.durability import StoreCalls
from server.storage.store import Store
from server.tables.coordination import Session, TableError


class Records:
    """Answers ``get_record`` and ``get_replay``; ``store`` gives the open store."""

    def __init__(self, *, db: StoreCalls, store: Callable[[], Store]) -> None:
        self.db = db
        self.store = store
        self.replays = ReplayCache()

    def get_record(self, s: Session, msg: GetRecord) -> Reply:
        async def fetch() -> Record:
            game = await self.db(self.store().game, msg.game)
            if game is None:
                raise TableError(ErrorCode.UNKNOWN_GAME, f"no finished game {msg.game}")
            return Record(id=msg.id, record=cast(StoredGame, game))  # as the store wrote it

        return Reply(later=fetch())

    def get_replay(self, s: Session, msg: GetReplay) -> Reply:
        async def fetch() -> Replay:
            replay = self.replays.get(msg.game)
            if replay is None:
                game = await self.db(self.store().game, msg.game)
                if game is None:
                    raise TableError(ErrorCode.UNKNOWN_GAME, f"no finished game {msg.game}")
                replay = GameReplay(game)
                self.replays.put(msg.game, replay)
            return Replay(
                id=msg.id,
                game=msg.game,
                table_name=replay.table_name,
                preset=replay.record.preset,
                dealer=replay.record.dealer,
                actions=replay.actions,
                steps=replay.steps(msg.start, msg.count),
            )

        return Reply(later=fetch())
