"""Typed commands: parsing, mapping to the server's exact action texts, and completion.

The server accepts only the action texts of ``view["legal"]`` (PROTOCOL.md §7), so every
game command is resolved *against that list*: ``play 7h 7d``, ``7d 7h``, ``7 7``, ``7*`` (all
the sevens one may play), ``t`` or ``take``, ``flip 2``, ``swap Ts 0`` or ``swap Ts 4h`` (by
the face-up card), ``place 9h 0``, ``ready``... become the one legal text they mean, or a
:class:`CommandError` that says in words why not. Nothing here does I/O.

Other commands (lobby, chat, help) become a :class:`Command` whose ``kind`` the app carries
out; the grammar is in :data:`HELP`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from client.bots import bot_names
from client.cli.model import Model, Pick, selectables, selected_picks, waiting_seats
from server.engine import preset_names

__all__ = [
    "BOTS",
    "HELP",
    "PRESETS",
    "Command",
    "CommandCompleter",
    "CommandError",
    "action_from_selection",
    "normalize_card",
    "parse_command",
    "resolve_action",
    "take_action",
]

#: The rules presets ``create`` offers: the engine's catalogue (server/engine/rules.py).
PRESETS = preset_names()
#: The bundled bots ``/bot`` offers: the catalogue's (client/bots/__init__.py).
BOTS = tuple(bot_names())

HELP = """\
Game: the server's action texts work as they are; Tab completes legal ones.
  play 7h 7d | 7h 7d | 7 7 | 7*   play cards (7* = every 7 you may play)
  take | t          pick up the pile     take 9c   give up face-up 9c, pick up
  flip N            turn over face-down card N
  swap Ts 0         setup: Ts to face-up slot 0 (swap Ts 4h: to where 4h lies)
  place 9h 0        setup: put 9h on an empty face-up slot
  ready | r         setup done
  draw, gamble, announce 4h, pass, run 5h 6h 7h   where the rules have them
Keys on an empty input line:
  Left/Right choose a card    Space mark it    Enter play the marked cards
  (or the one under the cursor; in setup a hand card + a face-up card swap)
  Ctrl-T pick up    Esc unmark    F1 help    Ctrl-D quit
  PgUp/PgDn scroll the log (and this help)
Lobby and table:
  list                      the open tables
  create [preset] [seats] [name=N] [password=P] [seconds=S] [option=value ...]
  join T [seat] [password]  sit down        watch T [password]   spectate
  resume [T]                take your seat back (after quitting the client)
  bot random|greedy|search|ismcts [seat]    (owner) seat a bundled bot
  start | next              (owner) deal the next game
  history                   the whole game so far, who did what (Esc closes)
  leave    record GAME    chat TEXT (or 'TEXT)    help    quit"""

_VERB_ALIASES = {
    "p": "play",
    "play": "play",
    "run": "run",
    "t": "take",
    "take": "take",
    "pick": "take",
    "pickup": "take",
    "f": "flip",
    "flip": "flip",
    "swap": "swap",
    "s": "swap",
    "place": "place",
    "ready": "ready",
    "r": "ready",
    "draw": "draw",
    "d": "draw",
    "gamble": "gamble",
    "g": "gamble",
    "announce": "announce",
    "a": "announce",
    "pass": "pass",
}
_COMMANDS = {
    "list": "list",
    "ls": "list",
    "l": "list",
    "tables": "list",
    "create": "create",
    "new": "create",
    "join": "join",
    "j": "join",
    "sit": "join",
    "watch": "watch",
    "w": "watch",
    "leave": "leave",
    "start": "start",
    "next": "start",
    "deal": "start",
    "bot": "bot",
    "addbot": "bot",
    "add_bot": "bot",
    "chat": "chat",
    "say": "chat",
    "help": "help",
    "history": "history",
    "log": "history",
    "?": "help",
    "h": "help",
    "quit": "quit",
    "exit": "quit",
    "q": "quit",
    "record": "record",
    "resume": "resume",
    "back": "resume",
}
#: The command words completion offers (the aliases work but are not offered).
_OFFERED = (
    "list",
    "create",
    "join",
    "watch",
    "leave",
    "start",
    "next",
    "bot",
    "chat",
    "record",
    "resume",
    "history",
    "help",
    "quit",
)
_CREATE_KEYS = {
    "name": "name",
    "password": "password",
    "pw": "password",
    "seconds": "action_seconds",
    "action_seconds": "action_seconds",
    "bank": "bank_seconds",
    "bank_seconds": "bank_seconds",
    "seed": "seed",
    "preset": "preset",
    "seats": "seats",
}

_SUITS = {"c": "c", "d": "d", "h": "h", "s": "s", "♣": "c", "♦": "d", "♥": "h", "♠": "s"}
_RANKS = set("23456789TJQKA")
_CARD_RE = re.compile(r"^(10|[2-9tjqkax])([cdhsrb♣♦♥♠])$", re.IGNORECASE)
_RANK_RE = re.compile(r"^(10|[2-9tjqka])(\*?)$", re.IGNORECASE)


class CommandError(Exception):
    """A typed command that cannot be carried out; the message says why, in words."""


@dataclass(frozen=True)
class Command:
    """A parsed command. ``kind``: ``act`` (``action`` holds the exact legal text), ``list``,
    ``create``, ``join``, ``watch``, ``leave``, ``start``, ``bot``, ``chat``, ``record``,
    ``resume``, ``help`` or ``quit``; ``args`` the request's arguments."""

    kind: str
    action: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


def normalize_card(token: str) -> str | None:
    """A card token in the server's canonical form (``10H`` -> ``Th``, ``7♥`` -> ``7h``,
    ``xr`` -> ``Xr``), or None if it is not a card."""
    m = _CARD_RE.match(token.strip())
    if not m:
        return None
    rank, suit = m.group(1).upper(), m.group(2).lower()
    rank = "T" if rank == "10" else rank
    if rank == "X":
        return f"X{suit}" if suit in ("r", "b") else None
    return f"{rank}{_SUITS[suit]}" if suit in _SUITS else None


def _rank_token(token: str) -> tuple[str, bool] | None:
    """``7`` -> ('7', False), ``7*`` -> ('7', True), ``10`` -> ('T', False); else None."""
    m = _RANK_RE.match(token.strip())
    if not m:
        return None
    rank = m.group(1).upper()
    return ("T" if rank == "10" else rank), bool(m.group(2))


def _split(action: str) -> tuple[str, list[str]]:
    verb, *rest = action.split()
    return verb, rest


def _legal_list(legal: Sequence[str]) -> str:
    shown = ", ".join(legal[:8])
    return shown + (f", ... ({len(legal)} in all)" if len(legal) > 8 else "")


def _card_play(tokens: list[str], legal: Sequence[str], verbs: tuple[str, ...]) -> str:
    """The legal play/run whose cards are ``tokens`` (cards or ranks, any order)."""
    exact: list[str] = []
    ranks: Counter[str] = Counter()
    all_of: set[str] = set()
    for tok in tokens:
        card = normalize_card(tok)
        if card is not None:
            exact.append(card)
            continue
        rank = _rank_token(tok)
        if rank is None:
            raise CommandError(f"'{tok}' is not a card (cards are written like 7h, Td, As, 10c)")
        if rank[1]:
            all_of.add(rank[0])
        else:
            ranks[rank[0]] += 1
    best: tuple[int, str] | None = None
    for action in legal:
        verb, cards = _split(action)
        if verb not in verbs:
            continue
        left = Counter(cards)
        left.subtract(exact)
        if any(v < 0 for v in left.values()):
            continue
        rest = Counter({c: n for c, n in left.items() if n > 0})
        by_rank: Counter[str] = Counter()
        for c, n in rest.items():
            by_rank[c[0]] += n
        if any(by_rank[r] != n for r, n in ranks.items() if r not in all_of):
            continue
        if any(r not in ranks and r not in all_of for r in by_rank):
            continue
        if any(by_rank[r] == 0 for r in all_of):
            continue
        # "7*" wants as many sevens as may go; otherwise the first match in the server's order.
        size = len(cards) if all_of else 0
        if best is None or size > best[0]:
            best = (size, action)
    if best is not None:
        return best[1]
    if exact and not ranks and not all_of:
        # Exact cards that make no legal play: sent as they are, so that the server answers
        # with the rule that refuses them (the engine's diagnosis: the card to beat, a pair
        # needed, not in your hand ...). The client keeps no second copy of the rules.
        return f"{'run' if verbs == ('run',) else 'play'} {' '.join(exact)}"
    wanted = " ".join(tokens)
    plays = [a for a in legal if _split(a)[0] in verbs]
    if not plays:
        raise CommandError(f"None of your cards can be played now. Legal: {_legal_list(legal)}")
    raise CommandError(f"No legal play matches '{wanted}'. Legal: {_legal_list(legal)}")


def _slot_of(token: str, model: Model) -> int | None:
    """A face-up slot given as a number or as the card lying there."""
    if token.isdigit():
        return int(token)
    card = normalize_card(token)
    view, seat = model.view, model.seat
    if card is None or view is None or seat is None:
        return None
    for i, stack in enumerate((view.get("players") or [])[seat].get("face_up") or ()):
        if card in stack:
            return i
    return None


def resolve_action(text: str, model: Model) -> str:
    """The exact legal action text that the typed ``text`` means, given ``model``'s view.

    A well-formed action that is not legal (a card that does not beat the pile, one not held)
    is returned as it is: the server refuses it with the engine's reason, which the feed shows.
    Raises :class:`CommandError` (in words) for what cannot be sent at all: not seated, not our
    turn, no game, cards that are not cards, a pattern (``7*``) that matches no legal play."""
    legal = model.legal
    tokens = text.split()
    if not tokens:
        raise CommandError("Type an action, or press Enter with cards marked.")
    first = tokens[0].lower()
    if (
        first not in _VERB_ALIASES
        and normalize_card(first) is None
        and _rank_token(first) is None
        and not any(a.split()[0] == first for a in legal)
    ):
        raise CommandError(f"Unknown command '{tokens[0]}'. Type 'help' for the commands.")
    if model.view is None:
        raise CommandError("No game is running here." if model.table is not None else "You are not at a table.")
    if model.seat is None:
        raise CommandError("You are watching: spectators cannot play.")
    # The server's own text, perhaps in another card order or spelling.
    canon = " ".join([tokens[0].lower()] + [normalize_card(t) or t for t in tokens[1:]])
    for action in legal:
        legal_verb, cards = _split(action)
        if canon == action or (
            legal_verb in ("play", "run")
            and canon.split()[0] == legal_verb
            and Counter(canon.split()[1:]) == Counter(cards)
        ):
            return action
    verb = _VERB_ALIASES.get(first)
    args = tokens[1:]
    if verb is None:
        verb, args = "play", tokens
    if not legal:
        turn = model.view.get("turn")
        if model.view.get("phase") == "over":
            raise CommandError("The game is over.")
        who = model.names()(turn) if isinstance(turn, int) else None
        raise CommandError(f"It is not your turn{f' ({who} is to play)' if who else ''}.")
    if verb in ("play", "run"):
        if not args:
            raise CommandError("Say which cards: play 7h 7d (or just 7h 7d).")
        return _card_play(args, legal, ("run",) if verb == "run" else ("play", "run"))
    if verb == "take":
        return take_action(model, args[0] if args else None)
    if verb == "flip":
        flips = [a for a in legal if a.startswith("flip ")]
        if not args:
            if len(flips) == 1:
                return flips[0]
            if not flips:
                raise CommandError(f"You cannot turn over a face-down card now. Legal: {_legal_list(legal)}")
            raise CommandError(f"Which one? {', '.join(flips)}")
        action = f"flip {args[0]}"
    elif verb in ("swap", "place"):
        if len(args) != 2:
            raise CommandError(f"{verb} needs a hand card and a face-up slot: {verb} Ts 0")
        card, slot = normalize_card(args[0]), _slot_of(args[1], model)
        if card is None or slot is None:
            raise CommandError(f"{verb} needs a hand card and a face-up slot (0, 1, ... or the card there).")
        action = f"{verb} {card} {slot}"
    elif verb == "announce":
        card = normalize_card(args[0]) if args else None
        if card is None:
            raise CommandError("announce needs a card: announce 4h")
        action = f"announce {card}"
    else:
        action = verb
    # Legal or not, it goes to the server: a refusal comes back with the rule that refused it.
    return action


def take_action(model: Model, card: str | None = None) -> str:
    """The legal pick-up: ``take``, or ``take C`` giving up face-up ``card`` (or the one face-up
    card marked on screen). Raises :class:`CommandError` when no pick-up is legal or it is not
    clear which face-up card to give up."""
    legal = model.legal
    if card is None and "take" in legal:
        return "take"
    takes = [a for a in legal if a.startswith("take ")]
    if card is None:
        marked = [c for p in selected_picks(model) if p.zone == "up" for c in p.cards[:1]]
        if len(marked) == 1 and f"take {marked[0]}" in legal:
            return f"take {marked[0]}"
        if takes:
            raise CommandError("Give up which face-up card with the pile? " + ", ".join(takes))
        raise CommandError("You cannot pick up now." if legal else "It is not your turn.")
    action = f"take {normalize_card(card) or card}"
    if action in legal:
        return action
    raise CommandError(f"'{action}' is not legal now. Legal: {_legal_list(legal)}")


def action_from_selection(model: Model) -> str:
    """The legal action the marked picks make (or the pick under the cursor when nothing is
    marked): a play of hand or face-up cards, a flip, or in setup a swap/place of one hand card
    and one face-up slot. Raises :class:`CommandError` when they make none."""
    picks = selected_picks(model)
    if not picks:
        every = selectables(model)
        if not every:
            raise CommandError("Nothing to play: type a command (help lists them).")
        if model.view is not None and model.view.get("phase") == "setup":
            raise CommandError(
                "Setup: mark a hand card and a face-up card with Space, then Enter to swap; type 'ready' when done."
            )
        picks = (every[min(model.cursor, len(every) - 1)],)
    zones = {p.zone for p in picks}
    if model.view is not None and model.view.get("phase") == "setup":
        hand = [p for p in picks if p.zone == "hand"]
        ups = [p for p in picks if p.zone == "up"]
        if len(hand) != 1 or len(ups) != 1:
            raise CommandError("Mark one hand card and one face-up slot to swap them.")
        card, slot = hand[0].cards[0], ups[0].index
        for verb in ("swap", "place"):
            if f"{verb} {card} {slot}" in model.legal:
                return f"{verb} {card} {slot}"
        raise CommandError(f"You cannot put {card} on slot {slot} now.")
    if zones == {"down"}:
        if len(picks) != 1:
            raise CommandError("Turn over one face-down card at a time.")
        action = f"flip {picks[0].index}"
        if action in model.legal:
            return action
        raise CommandError(f"You cannot turn over card {picks[0].index} now.")
    cards = [c for p in picks for c in p.cards]
    return _card_play(cards, model.legal, ("play", "run"))


def _parse_value(text: str) -> Any:
    """An option value: JSON when it parses (numbers, true/false, lists, maps), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _parse_create(args: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    options: dict[str, Any] = {}
    for tok in args:
        if "=" in tok:
            key, _, value = tok.partition("=")
            target = _CREATE_KEYS.get(key.lower())
            if target in ("name", "password", "preset"):
                out[target] = value
            elif target is not None:
                try:
                    out[target] = int(value) if target in ("seed", "seats") else float(value)
                except ValueError:
                    raise CommandError(f"{key} needs a number, not '{value}'") from None
            else:
                options[key] = _parse_value(value)
        elif tok.isdigit():
            out["seats"] = int(tok)
        elif "preset" not in out:
            out["preset"] = tok.lower()
        else:
            raise CommandError(f"create: unexpected '{tok}' (options are written key=value)")
    if options:
        out["options"] = options
    return out


def _int(tok: str, what: str) -> int:
    try:
        return int(tok.lstrip("#"))
    except ValueError:
        raise CommandError(f"{what} must be a number, not '{tok}'") from None


def parse_command(text: str, model: Model) -> Command:
    """What the typed line ``text`` asks for. Raises :class:`CommandError` (in words)."""
    text = text.strip()
    if not text:
        raise CommandError("Empty command.")
    if text[0] in "'\"":
        return Command("chat", args={"text": text[1:].strip().strip(text[0]) or text[1:]})
    first, _, rest = text.partition(" ")
    tokens = rest.split()
    kind = _COMMANDS.get(first.lower())
    # "start" is a lobby word; every other game word goes through the legal actions.
    if kind is None:
        return Command("act", action=resolve_action(text, model))
    if kind == "chat":
        if not rest.strip():
            raise CommandError("chat needs some text: chat hello")
        return Command("chat", args={"text": rest.strip()})
    if kind in ("help", "history", "quit", "list", "leave", "start"):
        return Command(kind)
    if kind == "create":
        return Command("create", args=_parse_create(tokens))
    if kind in ("join", "watch"):
        if not tokens:
            if model.created is None:
                raise CommandError(f"{kind} which table? {kind} T (see 'list')")
            tokens = [str(model.created)]
        args: dict[str, Any] = {"table": _int(tokens[0], "The table")}
        for tok in tokens[1:]:
            if tok.lower().startswith(("password=", "pw=")):
                args["password"] = tok.partition("=")[2]
            elif kind == "join" and tok.isdigit() and "seat" not in args:
                args["seat"] = int(tok)
            else:
                args["password"] = tok
        return Command(kind, args=args)
    if kind == "resume":
        if tokens:
            return Command("resume", args={"table": _int(tokens[0], "The table")})
        waiting = waiting_seats(model)
        if not waiting:
            raise CommandError("No seat is waiting for you ('list' shows the tables).")
        return Command("resume", args={"table": waiting[0][0]})
    if kind == "bot":
        if not tokens:
            raise CommandError(f"bot needs a name: {', '.join(BOTS)}")
        args = {"bot": tokens[0].lower()}
        if len(tokens) > 1:
            args["seat"] = _int(tokens[1], "The seat")
        return Command("bot", args=args)
    if kind == "record":
        if not tokens:
            if model.game_over is None:
                raise CommandError("record needs a game id: record 12")
            tokens = [str(model.game_over.game)]
        return Command("record", args={"game": _int(tokens[0], "The game")})
    raise CommandError(f"Unknown command '{first}'.")  # pragma: no cover - every kind is handled


class CommandCompleter(Completer):
    """Completes the legal actions first (what one may do now), then the command words, table
    ids after ``join``/``watch``, the tables of waiting seats after ``resume``, presets after
    ``create`` and bot names after ``bot``.

    ``get_model`` is called at each completion, so the completer always sees the latest state.
    A short form completes to the full legal text (``7`` -> ``play 7h``)."""

    def __init__(self, get_model: Any) -> None:
        self.get_model = get_model

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
        model: Model = self.get_model()
        text = document.text_before_cursor
        low = text.lower()
        words = low.split()
        seen: set[str] = set()

        def offer(candidates: Iterable[str], meta: str, typed: str) -> Iterator[Completion]:
            for cand in candidates:
                if cand.lower().startswith(typed.lower()) and cand not in seen:
                    seen.add(cand)
                    yield Completion(cand, start_position=-len(typed), display_meta=meta)

        yield from offer(model.legal, "legal", text)
        if (words and normalize_card(words[0])) or (words and _rank_token(words[0])):
            # A short form like "7" or "7h 7": offer the plays it begins.
            yield from offer((a for a in model.legal if a.startswith(("play ", "run "))), "legal", "play " + text)
            return
        if " " not in text:
            yield from offer(_OFFERED, "command", text)
            return
        cmd = _COMMANDS.get(words[0]) if words else None
        last = "" if text.endswith(" ") else text.split()[-1]
        if cmd in ("join", "watch") and len(words) <= 2:
            for tid, summary in sorted(model.tables.items()):
                label = str(tid)
                if label.startswith(last) and label not in seen:
                    seen.add(label)
                    yield Completion(
                        label,
                        start_position=-len(last),
                        display_meta=f"{summary.get('name', '')} ({summary.get('preset', '')})",
                    )
        elif cmd == "resume" and len(words) <= 2:
            for tid, seat in waiting_seats(model):
                label = str(tid)
                if label.startswith(last) and label not in seen:
                    seen.add(label)
                    found = model.tables.get(tid)
                    name = found["name"] if found is not None else ""
                    yield Completion(label, start_position=-len(last), display_meta=f"{name}: your seat {seat}")
        elif cmd == "bot" and len(words) <= 2:
            yield from offer(BOTS, "bot", last)
        elif cmd == "create":
            yield from offer(PRESETS, "preset", last)


def picks_text(picks: Sequence[Pick]) -> str:
    """Marked picks as text, for the status line."""
    return " ".join(c for p in picks for c in (p.cards or (f"#{p.index}",)))
