"""Why was an action refused? The slow path of :meth:`~server.engine.game.Game.apply`.

The game decides legality by membership in its legal list; only when an action is refused
does this module work out the most specific :class:`IllegalReason` and a message. Messages name
only cards the acting seat named itself or holds, so they never reveal hidden cards.
"""

from __future__ import annotations

from .actions import (
    ANNOUNCE_KINDS,
    DRAW,
    FLIP,
    GAMBLE,
    PLACE,
    PLAY,
    PLAY_KINDS,
    READY,
    RUN,
    SETUP_KINDS,
    SWAP,
    TAKE,
    Action,
    format_action,
    is_well_formed,
)
from .cards import JOKER, RANK, SUIT, format_card, rank_char
from .errors import IllegalAction, IllegalReason
from .powers import AT_MOST, BELOW
from .state import ANNOUNCING, FACE_DOWN, FACE_UP, HAND, OVER, PLAYING, SETUP, GameState


def _err(code: IllegalReason, message: str) -> IllegalAction:
    return IllegalAction(code, message)


def _held(pool: list[int], cards: tuple[int, ...]) -> bool:
    rest = list(pool)
    for c in cards:
        if c not in rest:
            return False
        rest.remove(c)
    return True


def diagnose(game: GameState, seat: object, action: object) -> IllegalAction:
    """Return the :class:`IllegalAction` that explains why ``action`` of ``seat`` is refused."""
    if type(seat) is not int or not 0 <= seat < game.n:
        return _err(IllegalReason.NOT_YOUR_TURN, f"there is no seat {seat!r} at this table")
    if not is_well_formed(action):
        return _err(IllegalReason.MALFORMED_ACTION, "not an action; see the list of actions in the docs")
    assert isinstance(action, tuple)
    kind = action[0]
    if game.phase == OVER:
        return _err(IllegalReason.GAME_OVER, "the game is over")
    text = format_action(action)
    if game.phase == SETUP:
        return _setup(game, seat, action, text)
    if kind in SETUP_KINDS:
        return _err(IllegalReason.WRONG_PHASE, f"{kind!r} belongs to the setup, which is over")
    if game.phase == ANNOUNCING:
        if kind not in ANNOUNCE_KINDS:
            return _err(IllegalReason.WRONG_PHASE, "the opening is being announced: announce a card or pass")
        if seat != game.current:
            return _err(IllegalReason.NOT_YOUR_TURN, f"it is seat {game.current}'s turn to announce")
        return _err(IllegalReason.CARD_NOT_HELD, f"you do not hold {format_card(action[1])}")
    assert game.phase == PLAYING
    if kind in ANNOUNCE_KINDS:
        return _err(IllegalReason.WRONG_PHASE, "announcing is only before the first play")
    if seat != game.current:
        return _err(IllegalReason.NOT_YOUR_TURN, f"it is seat {game.current}'s turn")
    assert kind in PLAY_KINDS
    return _play(game, seat, action, text)


def _setup(game: GameState, seat: int, action: Action, text: str) -> IllegalAction:
    kind = action[0]
    if kind not in SETUP_KINDS:
        return _err(IllegalReason.WRONG_PHASE, "the game is in setup: swap, place or ready")
    if game.ready[seat]:
        return _err(IllegalReason.ALREADY_READY, "you are ready; wait for the others")
    row = game.face_up[seat]
    if kind == READY:
        return _err(IllegalReason.SETUP_INCOMPLETE, f"put a card on each of your {len(row)} face-up slots first")
    c, slot = action[1], action[2]
    if not 0 <= slot < len(row):
        return _err(IllegalReason.BAD_POSITION, f"no face-up slot {slot}; slots are 0..{len(row) - 1}")
    if c not in game.hand(seat):
        return _err(IllegalReason.CARD_NOT_HELD, f"{format_card(c)} is not in your hand")
    st = row[slot]
    if kind == SWAP:
        if not st:
            return _err(IllegalReason.NOT_ALLOWED, f"slot {slot} is empty: place a card there instead")
        if len(st) > 1:
            return _err(IllegalReason.STACK_SPLIT, f"slot {slot} holds a stack, which cannot be swapped")
        return _err(IllegalReason.NOT_ALLOWED, f"{text!r} would change nothing")
    assert kind == PLACE
    if not game.rules.karma_stacking:
        return _err(IllegalReason.NOT_ALLOWED, f"slot {slot} is taken: swap instead")
    return _err(IllegalReason.NOT_ALLOWED, f"only a card of the same rank may be stacked on slot {slot}")


def _word(rank: int) -> str:
    """A rank as a player says it: ``10`` for the notation's ``T``, ``joker`` for ``X``."""
    ch = rank_char(rank)
    return {"T": "10", "X": "joker"}.get(ch, ch)


def _a(rank: int) -> str:
    """``a 7``, ``an 8``, ``an A``: a rank in a sentence."""
    word = _word(rank)
    return f"{'an' if word in ('8', 'A') else 'a'} {word}"


def what_beats(game: GameState) -> str:
    """The rule that decides what may go on the pile now, in words: the card to beat (under any
    glass cards on top), its duty (higher; or lower, after a 7-like card), and the ranks that go
    on it all the same. Names only public cards (the pile)."""
    pw, eff = game.pw, game.eff
    if eff == 0:
        return "anything may be played on it"
    x = _word(eff)
    on_top = RANK[game.pile[-1]] if game.pile else eff
    if on_top != eff:
        head = f"the {_word(on_top)} on top is glass, so the card to beat is the {x} under it"
    else:
        head = f"the card to beat is {_a(eff)}"
    ranks = [r for r in range(2, JOKER + 1) if pw.beats[eff][r]]
    if pw.lower[eff] == AT_MOST:
        natural = {r for r in ranks if pw.value[r] <= pw.value[eff]}
        duty = f"it asks for {x} or lower"
    elif pw.lower[eff] == BELOW:
        natural = {r for r in ranks if pw.value[r] < pw.value[eff]}
        duty = f"it asks for a card lower than {x}"
    else:
        natural = {r for r in ranks if pw.value[r] >= pw.value[eff]}
        duty = f"play {x} or higher"
    others = [_word(r) for r in ranks if r not in natural]
    extra = f", or {' or '.join(others)} (also allowed on it)" if others else ""
    return f"{head}; {duty}{extra}"


def _play(game: GameState, seat: int, action: Action, text: str) -> IllegalAction:
    kind = action[0]
    src = game.source(seat)
    rules = game.rules
    if kind in (PLAY, RUN):
        return _cards(game, seat, action, src)
    if kind == FLIP:
        if src != FACE_DOWN:
            return _err(
                IllegalReason.WRONG_SOURCE,
                "face-down cards come last: play your " + ("hand" if src == HAND else "face-up cards") + " first",
            )
        return _err(IllegalReason.BAD_POSITION, f"no face-down card at position {action[1]}")
    if kind == TAKE:
        if not game.pile:
            return _err(IllegalReason.EMPTY_PILE, "the pile is empty: picking it up is not a move")
        if src == FACE_DOWN:
            return _err(IllegalReason.WRONG_SOURCE, "with only face-down cards left you must turn one over")
        if not rules.voluntary_pickup and any(a[0] in (PLAY, RUN) for a in game.legal_actions(seat)):
            return _err(IllegalReason.MUST_PLAY, "you can play, so you may not pick up (voluntary_pickup is off)")
        if src == FACE_UP and rules.faceup_fail == "take_one" and len(action) == 1:
            return _err(IllegalReason.NOT_ALLOWED, "name the face-up card that goes with the pile: 'take <card>'")
        if len(action) == 2:
            if src != FACE_UP or rules.faceup_fail != "take_one":
                return _err(IllegalReason.NOT_ALLOWED, "just 'take': no face-up card goes with the pile now")
            return _err(IllegalReason.CARD_NOT_HELD, f"{format_card(action[1])} is not among your face-up cards")
        return _err(IllegalReason.NOT_ALLOWED, f"{text!r} is not allowed now")
    if kind in (DRAW, GAMBLE):
        option = "draw_before_play" if kind == DRAW else "stock_gamble"
        if not getattr(rules, option):
            return _err(IllegalReason.OPTION_OFF, f"{kind!r} needs the option {option}")
        if not game.stock:
            return _err(IllegalReason.STOCK_EMPTY, "the stock is empty")
        if src != HAND:
            return _err(IllegalReason.WRONG_SOURCE, f"{kind!r} is only for a player who plays from the hand")
        if game.forced >= 0:
            return _err(IllegalReason.MUST_PLAY_ANNOUNCED, f"play the announced {format_card(game.forced)} first")
        if kind == DRAW:
            return _err(
                IllegalReason.HAND_TOO_LARGE,
                f"no drawing now: the hand was above refill_to={rules.refill_to}"
                " at the start of the turn, or no play could then leave that many",
            )
        return _err(IllegalReason.NOT_ALLOWED, "no gamble after drawing")
    return _err(IllegalReason.NOT_ALLOWED, f"{text!r} is not allowed now")


def _cards(game: GameState, seat: int, action: Action, src: str) -> IllegalAction:
    kind, cards = action[0], tuple(sorted(action[1]))
    rules = game.rules
    names = " ".join(format_card(c) for c in cards)
    hand = game.hand(seat)
    row = game.face_up[seat]
    row_cards = [c for st in row for c in st]
    if src == FACE_DOWN:
        return _err(IllegalReason.WRONG_SOURCE, "only face-down cards are left: turn one over with 'flip N'")
    pool = hand if src == HAND else row_cards
    if not _held(pool, cards):
        if src == HAND and _held(row_cards, cards):
            return _err(IllegalReason.WRONG_SOURCE, "you still hold cards in hand: play from the hand (C12)")
        return _err(IllegalReason.CARD_NOT_HELD, f"you do not hold {names}" + (" face up" if src == FACE_UP else ""))
    ranks = {RANK[c] for c in cards}
    if kind == RUN:
        if not rules.suit_runs:
            return _err(IllegalReason.OPTION_OFF, "runs need the option suit_runs")
        suits = {SUIT[c] for c in cards}
        rs = sorted(ranks)
        if (
            len(cards) < 2
            or len(suits) != 1
            or JOKER in ranks
            or len(rs) != len(cards)
            or rs != list(range(rs[0], rs[0] + len(rs)))
        ):
            return _err(IllegalReason.NOT_A_RUN, "a run is 2 or more consecutive ranks of one suit")
    elif len(ranks) > 1:
        return _err(IllegalReason.MIXED_RANKS, f"{names}: a play is cards of one rank (or a run with 'run')")
    if game.forced >= 0 and game.forced not in cards:
        return _err(
            IllegalReason.MUST_PLAY_ANNOUNCED, f"the first play must contain the announced {format_card(game.forced)}"
        )
    first = RANK[cards[0]]
    if not game.pw.beats[game.eff][first]:
        return _err(IllegalReason.DOES_NOT_BEAT, f"{_a(first)} does not beat the pile: {what_beats(game)}")
    if len(cards) < game.count_floor(first) and (kind == PLAY or rules.count_runs):
        return _err(IllegalReason.TOO_FEW_CARDS, f"play at least {game.last_len} cards (match_count)")
    if src == FACE_UP and rules.karma_stacking:
        return _err(IllegalReason.STACK_SPLIT, "face-up stacks are played whole")
    if src == HAND and game.drew and len(hand) - len(cards) > rules.refill_to:
        return _err(IllegalReason.HAND_TOO_LARGE, f"after drawing, the play must leave at most {rules.refill_to} cards")
    if kind == RUN:
        return _err(
            IllegalReason.DOES_NOT_BEAT,
            "each card of a run must be legal on the one before, and a burn may only come last",
        )
    return _err(IllegalReason.NOT_ALLOWED, f"{kind} {names} is not allowed now")
