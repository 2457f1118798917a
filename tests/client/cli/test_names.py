"""Names people use, in the terminal client (issue 35): "Anna Maria", "Zoë", "Mum's phone" and
"🦊 Fox" are shown exactly as given on every screen of an 80x24 terminal, with the columns
after them in place (an emoji takes two cells), and a name too wide for its column is cut by
display width, never by characters. Before connecting, the client says the name rule and checks
a name with :mod:`protocol.names`; a refusal of the server (NAME_TAKEN with its suggestion,
BAD_NAME with its reason) is said in one line.

Pure rendering here (model in, lines out), and the start-up functions of ``shithead`` against a
real server on 127.0.0.1; the real program in a real terminal is in test_terminal_names.py.
"""

from __future__ import annotations

import io
import random
import shlex
from collections.abc import Callable
from typing import Any

import pytest
from prompt_toolkit.utils import get_cwidth

from client.cli import __main__ as cli_main
from client.cli.draw import Line, Theme, cell, clip, line_width, plain_lines
from client.cli.model import Model, held_tables, is_me, reduce, waiting_seats
from client.cli.render import render_screen
from client.cli.replay import Replay, render_step
from client.cli.seats import SeatTokens
from client.cli.tv import tv_screen
from client.sdk import Client, ServerError
from protocol.messages import ChatMessage, GameOver, Joined, LoggedIn, Tables, TableUpdate, Watching
from protocol.names import NAME_RULE
from server.engine import Game, ReplayRecord, make_rules
from tests.client.cli.helpers import player, state, summary, view

ANNA, ZOE, MUM, FOX = "Anna Maria", "Zo\u00eb", "Mum's phone", "\U0001f98a Fox"
NAMES = [ANNA, ZOE, MUM, FOX]
WIDE = "\U0001f98a" * 12  # twelve foxes: 12 characters, 24 cells
THEMES = [Theme(), Theme(color=False), Theme(symbols=False)]


def widths(lines: list[Line]) -> list[int]:
    return [line_width(line) for line in lines]


def screen_text(lines: list[Line]) -> str:
    return "\n".join(plain_lines(lines))


def cells_before(row: str, marker: str) -> int:
    """Where ``marker`` starts in ``row``, in terminal cells."""
    return get_cwidth(row[: row.index(marker)])


# --------------------------------------------------------------------------- the models


def at_table(names: list[str], me: str = ZOE, seat: int = 1) -> Model:
    m = reduce(
        Model(name=me, server="127.0.0.1:7433", connection="connected"), Joined(id=1, table=1, seat=seat, token="t")
    )
    s = summary(1, list(names), owner=names[0], status="playing")
    return reduce(m, TableUpdate(table=1, summary=s))


def game(names: list[str] = NAMES) -> Model:
    players = [player(i, n, hand=4 + i, up=[["7h"], ["Kc"], ["2s"]]) for i, n in enumerate(names)]
    v = view(players, seat=1, hand=["3s", "9c", "Qh"], legal=["play 9c", "play Qh", "take"], turn=1, pile=["5c", "8d"])
    events = [{"kind": "played", "seat": 3, "cards": ["8d"], "source": "hand"}]
    m = reduce(at_table(names), state(v, events=events, deadline=30.0), now=100.0)
    return reduce(m, ChatMessage(table=1, name=FOX, text="hello from the den"))


def result(names: list[str] = NAMES) -> Model:
    final: dict[str, Any] = dict(game(names).view or {})
    tally = {
        "places": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
        "losses": [0, 0, 0, 1],
        "capped": 0,
        "players": names,
        "timeouts": [0, 2, 0, 0],
    }
    over = GameOver(
        table=1,
        game=1,
        result={"places": [0, 1, 2, 3], "loser": 3, "capped": False, "flush": None, "players": names},
        tally=tally,  # type: ignore[arg-type]
    )
    return reduce(reduce(game(names), state(final | {"phase": "over", "legal": [], "turn": None})), over)


def waiting(names: list[str] = NAMES) -> Model:
    return reduce(at_table(names), TableUpdate(table=1, summary=summary(1, list(names), owner=names[0])))


def lobby(names: list[str] = NAMES) -> Model:
    tables = [
        summary(i + 1, [n, None], owner=n, name=f"{n} classic") for i, n in enumerate(names)
    ]  # each name owns a table named after it, as 'create' names them
    away = summary(9, [names[0], ZOE], owner=names[0], name=f"{FOX} and friends")
    away["seats"][1]["away"] = True
    return reduce(
        Model(name=ZOE, server="127.0.0.1:7433", connection="connected"), Tables(id=1, tables=[*tables, away])
    )


def tv(names: list[str] = NAMES) -> Model:
    m = reduce(Model(name="tv-1", connection="connected"), Watching(id=3, table=1))
    m = reduce(m, TableUpdate(table=1, summary=summary(1, list(names))))
    players = [player(i, n, hand=3 + i, up=[["7h"], [], ["Kd", "Kc"]]) for i, n in enumerate(names)]
    v = view(
        players,
        seat=None,
        hand=None,
        legal=[],
        turn=2,
        pile=["4c", "9h"],
        clocks=[{"seat": 2, "left": 42.0, "bank": 0.0}],
    )
    return reduce(m, state(v, events=[{"kind": "played", "seat": 3, "cards": ["9h"], "source": "hand"}]), now=100.0)


SCREENS: dict[str, Callable[..., Model]] = {"game": game, "result": result, "waiting": waiting, "lobby": lobby}


# --------------------------------------------------------------------------- cells


def test_clip_and_cell_count_cells_not_characters() -> None:
    assert get_cwidth(FOX) == 6 and len(FOX) == 5
    assert cell(FOX, 8) == FOX + "  " and get_cwidth(cell(FOX, 8)) == 8
    assert clip(WIDE, 14) == "\U0001f98a" * 6 + "…"  # 13 cells: a seventh fox would make 15
    assert get_cwidth(cell(WIDE, 14)) == 14 and cell(WIDE, 14).endswith("… ")
    assert clip("Zoe\u0308 and more", 4) == "Zoe\u0308…"  # the combining mark stays with its letter
    assert clip("\U0001f469\u200d\U0001f469\u200d\U0001f467", 4) == "\U0001f469…"  # no dangling joiner
    assert clip(ANNA, 4, "~") == "Ann~" and clip(ANNA, 0) == "" and clip(ANNA, 10) == ANNA


# --------------------------------------------------------------------------- every screen


@pytest.mark.parametrize("theme", THEMES, ids=["colour", "no-colour", "ascii"])
@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_the_four_names_show_exactly_on_every_screen_within_80_columns(screen: str, theme: Theme) -> None:
    lines = render_screen(SCREENS[screen](), width=80, height=22, now=105.0, theme=theme)
    text = screen_text(lines)
    for name in NAMES:
        assert name in text, f"{name!r} not on the {screen} screen:\n{text}"
    assert max(widths(lines)) <= 80 and len(lines) <= 22


def test_the_tv_and_the_replay_show_the_four_names_within_80_columns() -> None:
    lines = tv_screen(tv(), width=80, height=24, now=100.0, theme=Theme())
    text = screen_text(lines)
    assert all(name in text for name in NAMES) and max(widths(lines)) <= 80
    assert f"{MUM} to play (42s left)" in text and f"{FOX} played 9♥" in text
    replay = Replay(finished_record(NAMES))
    for step in (0, 1, replay.steps):
        lines = render_step(replay, step, Theme())
        assert all(name in screen_text(lines) for name in NAMES) and max(widths(lines)) <= 80


def test_the_columns_after_the_names_stay_in_place() -> None:
    """The player rows of the game, the TV and the replay, the tally of the result and the lobby's
    table list: what follows a name starts in the same cell on every row, emoji or not."""
    rows = [r for r in plain_lines(render_screen(game(), width=80, height=22)) if " hand " in r and "up " in r]
    assert len(rows) == 4 and len({cells_before(r, " hand ") for r in rows}) == 1
    rows = [r for r in plain_lines(tv_screen(tv(), width=80, height=24)) if " hand " in r]
    assert len(rows) == 4 and len({cells_before(r, " hand ") for r in rows}) == 1
    rows = [r for r in plain_lines(render_screen(result(), width=80, height=22)) if any(n in r for n in NAMES)]
    tally = [r for r in rows if r.startswith("   ") and r.rstrip()[-1].isdigit()]
    assert len(tally) == 4 and len({get_cwidth(r) for r in tally}) == 1
    rows = [r for r in plain_lines(render_screen(lobby(), width=80, height=22)) if "waiting" in r and "/2" in r]
    assert len(rows) == 5 and len({cells_before(r, "/2") for r in rows}) == 1
    assert len({cells_before(r, " waiting ") for r in rows}) == 1
    replay = Replay(finished_record(NAMES))
    rows = [r for r in plain_lines(render_step(replay, replay.steps, Theme())) if "  out " in r]
    assert len(rows) == 3 and {cells_before(r, "  out ") for r in rows} == {2 + 14}


@pytest.mark.parametrize("screen", ["game", "result", "waiting", "lobby", "tv"])
def test_too_wide_a_name_is_cut_by_its_width(screen: str) -> None:
    """Twelve foxes (24 cells) where a column is 14 (10 in the lobby) cells wide: cut after the
    foxes that fit, with the cut mark; lines with room for it (the feed) keep the whole name; no
    line passes 80 columns."""
    names = [ANNA, ZOE, MUM, WIDE]
    make = tv if screen == "tv" else SCREENS[screen]
    model = make(names)
    lines = (tv_screen if screen == "tv" else render_screen)(model, width=80, height=22, now=100.0, theme=Theme())
    text = screen_text(lines)
    assert max(widths(lines)) <= 80
    if screen in ("game", "tv"):  # the player rows; the feed below names players in full
        (row,) = [r for r in plain_lines(lines) if " hand " in r and "\U0001f98a" in r]
        assert "\U0001f98a" * 6 + "… " in row and "\U0001f98a" * 7 not in row
        assert WIDE in text  # (in the feed)
    elif screen == "lobby":
        assert "\U0001f98a" * 4 + "… " in text  # the owner column: 10 cells
    else:  # the waiting table and the result name players in full where a line has the room
        assert WIDE in text


def test_my_seats_and_tables_are_found_by_the_servers_folding_of_names() -> None:
    """The lobby's waiting seats and owned tables: a seat named "ZOË" or in decomposed form is
    Zoë's (the server never lets two players hold names that fold alike)."""
    m = lobby()
    assert waiting_seats(m) == [(9, 1)] and held_tables(m) == {2, 9}
    assert is_me(m, "ZO\u00cb") and is_me(m, "Zoe\u0308") and not is_me(m, "Zoe") and not is_me(m, None)
    assert "You own this table" in screen_text(render_screen(waiting([ZOE.upper(), ANNA]), width=80, height=22))


def test_seat_tokens_are_kept_under_the_name_as_the_server_folds_it(tmp_path: Any) -> None:
    path = tmp_path / "seats.json"
    SeatTokens("lan:7433", "Zoe\u0308", path).put(3, "tok")
    assert SeatTokens("lan:7433", "ZO\u00cb", path).all() == {3: "tok"}
    assert SeatTokens("lan:7433", "Alice", path).name == "alice"  # files written before: lower case


# --------------------------------------------------------------------------- a record


def finished_record(names: list[str], seed: int = 5) -> dict[str, Any]:
    g = Game.new(make_rules("classic", {}), len(names), seed=seed)
    rng = random.Random(seed)
    while not g.is_over():
        seat = g.to_act()[0]
        legal = [a for a in g.legal_actions(seat) if a[0] != "take"] or list(g.legal_actions(seat))
        g.apply(seat, rng.choice(legal))
    d = ReplayRecord.of(g).to_dict()
    d["players"] = list(names)
    return {"id": 1, "table_name": f"{FOX} classic", "preset": "classic", "record": d}


# --------------------------------------------------------------------------- before connecting


def test_the_help_says_the_name_rule(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli_main.parse_args(["--help"])
    assert " ".join(NAME_RULE.split()) in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("name", [*NAMES, "alice", "  Anna   Maria "])
async def test_real_names_are_taken_as_given(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SHITHEAD_SERVER_PASSWORD", raising=False)
    creds = await cli_main.ask_credentials(cli_main.parse_args(["--guest", "--name", name]))
    assert creds == cli_main.Credentials(" ".join(name.split()), None, None, asked=False)


async def test_a_decomposed_name_is_sent_composed() -> None:
    creds = await cli_main.ask_credentials(cli_main.parse_args(["--guest", "--name", "Zoe\u0308"]))
    assert creds.name == ZOE


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("a" * 25, "at most 24 characters"),
        ("no<tags>", "'<'"),
        ("tab\u200bbed", "format character"),
        (" ", "at least one"),
    ],
)
async def test_a_name_against_the_rule_is_refused_with_the_reason_before_connecting(name: str, why: str) -> None:
    with pytest.raises(ValueError, match="is not a name") as refused:
        await cli_main.ask_credentials(cli_main.parse_args(["--guest", "--name", name]))
    assert why in str(refused.value)


async def test_a_typed_name_is_asked_again_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The prompt says the rule first; a bad name is said why and asked again."""
    answers = iter(["Dana!", f"  {MUM} "])
    asked: list[tuple[str, str]] = []

    async def ask(question: str, *, secret: bool = False, default: str = "") -> str:
        asked.append((question, default))
        return next(answers).strip()

    monkeypatch.setattr(cli_main, "_ask", ask)
    creds = await cli_main.ask_credentials(cli_main.parse_args(["--guest"]))
    assert creds == cli_main.Credentials(MUM, None, None, asked=True)
    out, err = (" ".join(text.split()) for text in capsys.readouterr())  # (broken to the terminal's width)
    assert f"Your name at the table: {NAME_RULE}." in out
    assert "Not a name: a name cannot hold '!'" in err
    assert [q for q, _ in asked] == ["Name: ", "Name: "]


# --------------------------------------------------------------------------- a real server's refusals


async def test_a_taken_name_is_said_with_the_servers_suggestion(
    make_app: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--name 'Anna Maria'`` while Anna Maria plays: the run ends with the command to try;
    "ANNA MARIA" is the same name; a name against the rule that reaches the server anyway
    (an older client's check) is refused with the server's reason, the connection still open."""
    app = await make_app()
    anna = await Client.connect("127.0.0.1", app.port)
    other = await Client.connect("127.0.0.1", app.port)
    try:
        await anna.login(ANNA, guest=True)
        free: str | None = None
        for asked_as in (ANNA, ANNA.upper()):
            creds = cli_main.Credentials(asked_as, None)
            refused = await cli_main.login(other, creds)
            assert isinstance(refused, ServerError) and refused.code == "NAME_TAKEN"
            assert refused.suggestion and refused.suggestion != ANNA
            free = refused.suggestion
            try_it = f"shithead --name {shlex.quote(free)}"
            assert capsys.readouterr().err == f"shithead: {asked_as} is taken ({refused.message}); try: {try_it}\n"
        bad = await cli_main.login(other, cli_main.Credentials("Dana!", None))
        assert isinstance(bad, ServerError) and bad.code == "BAD_NAME"
        assert capsys.readouterr().err == f"shithead: the server refuses the name 'Dana!': {bad.message}\n"
        assert free is not None  # (the last one offered)
        answer = await cli_main.login(other, cli_main.Credentials(free, None))
        assert isinstance(answer, LoggedIn) and answer.name == free
    finally:
        await anna.close()
        await other.close()


async def test_a_typed_name_that_is_taken_is_asked_again_with_the_suggestion(
    make_app: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The whole start-up (amain) with the name typed: 🦊 Fox is taken, the prompt comes back with
    the server's suggestion filled in, Enter takes it, and the client is logged in under it (it
    then needs a terminal, which this test has not: the run ends there, status 1)."""
    app = await make_app()
    fox = await Client.connect("127.0.0.1", app.port)
    await fox.login(FOX, guest=True)
    defaults: list[str] = []

    async def ask(question: str, *, secret: bool = False, default: str = "") -> str:
        defaults.append(default)
        return FOX if len(defaults) == 1 else default  # then Enter: the suggestion as filled in

    logged_in_as: list[str] = []

    def no_terminal(*args: object, **kwargs: object) -> None:
        logged_in_as.extend(s.name for s in app.sessions if s.name not in (None, FOX))
        raise OSError("no terminal here")

    monkeypatch.setattr(cli_main, "_ask", ask)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # not a terminal: the client opens /dev/tty
    monkeypatch.setattr(cli_main, "open", no_terminal, raising=False)
    try:
        status = await cli_main.amain(cli_main.parse_args([f"127.0.0.1:{app.port}", "--guest"]))
    finally:
        await fox.close()
    out, err = capsys.readouterr()
    assert status == 1 and "playing needs a terminal" in err
    assert f"Enter takes {defaults[1]}, or type another name." in " ".join(out.split())
    assert defaults[0] == "" and defaults[1] not in ("", FOX) and defaults[1].startswith(FOX)
    assert f"shithead: {FOX} is taken (" in err and f"; {defaults[1]} is free" in err
    assert logged_in_as == [defaults[1]]


async def test_a_guest_is_itself_again_with_a_kept_seat_token(make_app: Any) -> None:
    """The fox holds a seat and its client is gone. Another client with no token, or only the
    token of a table that is gone, is not the fox (NAME_TAKEN); the client that kept the seat's
    token is (the stale token first, then the good one), and takes the seat back."""
    app = await make_app()
    first = await Client.connect("127.0.0.1", app.port)
    await first.login(FOX, guest=True)
    t = await first.create_table("den", "classic", 2)
    held = await first.join(t, 0)
    await first.close()
    again = await Client.connect("127.0.0.1", app.port)
    try:
        for kept in ([], ["a-table-that-is-gone"]):
            refused = await cli_main.login(again, cli_main.Credentials(FOX, None), kept)
            assert isinstance(refused, ServerError) and refused.code == "NAME_TAKEN"
        answer = await cli_main.login(again, cli_main.Credentials(FOX, None), ["a-table-that-is-gone", held.token])
        assert isinstance(answer, LoggedIn) and answer.name == FOX and answer.guest
        assert (await again.resume(t, held.token)).seat == 0
    finally:
        await again.close()
