"""The protocol's side of challenges: ``challenge`` and ``get_challenge`` (docs/PROTOCOL.md,
"Challenges"), and the ``challenge_over`` push. The games are played by the ladder service
(:meth:`~server.ladder.service.LadderService.fill` starts waiting challenges first, within
``ladder_tables``); the figures are :mod:`server.ladder.challenges`'.

Bounds: one unfinished challenge per identity (``QUOTA_EXCEEDED``), at most
:data:`~protocol.challenge_messages.CHALLENGE_DEALS_MAX` deals, and the ladder's tables, which
challenges share with the ladder's own matches. The last :data:`KEPT` ended challenges stay
readable with ``get_challenge`` (the database keeps them all). Challenges survive a restart: a
challenge is written before ``challenge`` is answered, each game with the game's end
(:mod:`server.storage.challenge_rows`); at start the unfinished ones wait again and go on from
their next game (one running at the stop is played again from its deal, as the ladder closes
its table).
"""

from __future__ import annotations

import logging
import random
from collections import OrderedDict

from protocol.challenge_messages import Challenge as ChallengeRequest
from protocol.challenge_messages import ChallengeOver, ChallengeStatus, GetChallenge
from protocol.errors import ErrorCode
from protocol.names import name_key
from server.engine import preset_info, preset_names
from server.shell.reply import Handlers, Reply
from server.storage import challenge_rows
from server.tables.coordination import Session, TableError
from server.tables.table import Outbox

from .challenges import Challenge, layout_roles
from .service import LadderService

__all__ = ["KEPT", "ChallengeDesk"]

log = logging.getLogger(__name__)

KEPT = 100
"""Ended challenges kept for ``get_challenge``."""

RETRY_SECONDS = 60.0
"""``retry_after`` of a refusal for a challenge already running."""


class ChallengeDesk:
    """Takes challenges for ``ladder`` and tells their end."""

    def __init__(self, ladder: LadderService, *, rng: random.Random | None = None) -> None:
        self.ladder = ladder
        self.rng = rng or random.Random()
        self.challenges: OrderedDict[int, Challenge] = OrderedDict()
        self.next_id = 1
        ladder.on_challenge_over = self._over

    def register_handlers(self, handlers: Handlers) -> None:
        handlers.add(ChallengeRequest, self.challenge, writes=True)
        handlers.add(GetChallenge, self.get, writes=False, viewers=True)

    def challenge(self, s: Session, msg: ChallengeRequest) -> Reply:
        if s.guest:
            raise TableError(ErrorCode.NOT_INVITED, "challenges are for accounts: log in with one, not as a guest")
        if msg.preset not in preset_names():
            raise TableError(ErrorCode.BAD_RULES, f"no preset {msg.preset!r}; presets: {', '.join(preset_names())}")
        try:
            roles = layout_roles(msg.layout)
        except ValueError as exc:
            raise TableError(ErrorCode.BAD_RULES, str(exc)) from None
        info = preset_info(msg.preset)
        if not info.min_players <= len(roles) <= info.max_players:
            raise TableError(
                ErrorCode.BAD_RULES,
                f"{msg.layout} seats {len(roles)}; {msg.preset} plays {info.min_players} to {info.max_players}",
            )
        if len(msg.bots) != 2:
            raise TableError(ErrorCode.UNKNOWN_BOT, "name two bots: A, then B")
        a, b = msg.bots
        if name_key(a) == name_key(b) and not a.startswith("["):
            raise TableError(ErrorCode.UNKNOWN_BOT, f"{a} cannot play itself: one of the two may be a bundled bot")
        for role, name in enumerate((a, b)):
            self._check_bot(name, roles.count(role))
        for c in self.challenges.values():
            if c.identity == s.identity and not c.finished:
                raise TableError(
                    ErrorCode.QUOTA_EXCEEDED,
                    f"your challenge {c.id} has not finished: one at a time",
                    retry_after=RETRY_SECONDS,
                )
        if self.ladder.parts.tables_allowed() <= 0:
            raise TableError(ErrorCode.QUOTA_EXCEEDED, "this server plays no ladder tables (ladder_tables = 0)")
        c = Challenge.new(self.next_id, s.name, s.identity, msg.preset, (a, b), msg.layout, msg.deals, self.rng)
        self.next_id += 1
        self.challenges[c.id] = c
        self._forget_old()
        self.ladder.waiting.append(c)
        self.ladder.parts.write(challenge_rows.challenge_op(c))
        log.info("challenge %d by %s: %s against %s, %s, %d deals", c.id, s.name, a, b, msg.layout, msg.deals)
        return Reply(ChallengeStatus(id=msg.id, info=c.info()), after=[self.ladder.fill])

    def _check_bot(self, name: str, seats: int) -> None:
        if name.startswith("[") and name.endswith("]"):
            kinds = list(self.ladder.parts.bot_kinds())
            if name[1:-1] not in kinds:
                raise TableError(
                    ErrorCode.UNKNOWN_BOT, f"no bundled bot {name}; here: {', '.join(f'[{k}]' for k in kinds)}"
                )
            return
        member = self.ladder.members.get(name_key(name))
        if member is None or not self.ladder.parts.logged_in(member.identity):
            raise TableError(
                ErrorCode.UNKNOWN_BOT, f"{name} is not on the ladder now (it sends ladder_join, and stays connected)"
            )
        if member.name != name:
            raise TableError(ErrorCode.UNKNOWN_BOT, f"{name} is on the ladder as {member.name}")
        if seats != 1:
            raise TableError(
                ErrorCode.BAD_RULES, f"{name} is one connection: its side of the layout must be 1, not {seats}"
            )

    def restored(self, challenges: list[Challenge]) -> None:
        """The challenges read back at start: the unfinished ones wait again, in order."""
        for c in challenges:
            self.challenges[c.id] = c
            self.next_id = max(self.next_id, c.id + 1)
            if not c.finished:
                c.status = "waiting"
                self.ladder.waiting.append(c)
        self._forget_old()

    def get(self, s: Session, msg: GetChallenge) -> Reply:
        c = self.challenges.get(msg.challenge)
        if c is None:
            raise TableError(ErrorCode.UNKNOWN_GAME, f"no challenge {msg.challenge} (or one of the oldest, forgotten)")
        return Reply(ChallengeStatus(id=msg.id, info=c.info()))

    def _over(self, c: Challenge) -> None:
        log.info("challenge %d %s after %d games", c.id, c.status, len(c.games))
        out = Outbox()
        for session in self.ladder.parts.logged_in(c.identity):
            out.send(session, ChallengeOver(info=c.info()))
        self.ladder.parts.flush(out)
        self._forget_old()

    def _forget_old(self) -> None:
        ended = [k for k, c in self.challenges.items() if c.finished]
        for k in ended[: max(0, len(ended) - KEPT)]:
            del self.challenges[k]
