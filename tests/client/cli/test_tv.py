"""The table screen for a TV (``shithead watch``): the pile's top and the clock in large type,
every seat's public cards, the last plays and the series tally, within the screen's size."""

from __future__ import annotations

from client.cli.draw import Theme, plain_lines
from client.cli.model import Model, reduce
from client.cli.tv import big, tv_screen
from protocol.messages import GameOver, TableUpdate, Watching
from tests.client.cli.helpers import player, state, summary, view

NAMES = ["alice", "greedy-1", "carol"]


def watched(*, clocks: list[dict[str, object]], events: list[dict[str, object]]) -> Model:
    m = reduce(Model(name="tv-1", connection="connected"), Watching(id=3, table=1))
    m = reduce(m, TableUpdate(table=1, summary=summary(1, NAMES)))
    players = [player(i, n, hand=3 + i, up=[["7h"], [], ["Kd", "Kc"]]) for i, n in enumerate(NAMES)]
    v = view(players, seat=None, hand=None, legal=[], turn=1, pile=["4c", "9h"], clocks=clocks)
    return reduce(m, state(v, events=events), now=100.0)


def test_big_draws_ranks_tens_and_suits_five_rows_high() -> None:
    rows = big("Th", Theme(symbols=False))
    assert len(rows) == 5 and len(set(map(len, rows))) == 1
    assert rows[0].startswith(" #  ###")  # "1", "0" of the ten, then the heart
    assert "█" in big("7", Theme())[0] and "#" not in big("7", Theme())[0]


def test_the_tv_shows_the_table_large_and_follows_the_series() -> None:
    play = {"kind": "played", "seat": 0, "cards": ["9h"], "source": "hand"}
    m = watched(clocks=[{"seat": 1, "left": 42.0, "bank": 0.0}], events=[play])
    for width, height in ((80, 24), (60, 20)):
        lines = plain_lines(tv_screen(m, width=width, height=height, now=100.0, theme=Theme(symbols=False)))
        assert len(lines) <= height and all(len(line) <= width for line in lines)
        text = "\n".join(lines)
        assert "hearts" in text and "greedy-1 to play (42s left)" in text
        assert big("42", Theme(symbols=False))[0] in lines[2]  # the clock, large, beside the card
        assert "alice played 9h" in text
        for name in NAMES:
            assert f"  {name}" in text
        assert "up 7h -- Kcx2" in text and "down 3" in text
    # Five seconds later the large clock shows 37.
    later = plain_lines(tv_screen(m, width=80, height=24, now=105.0, theme=Theme(symbols=False)))
    assert big("37", Theme(symbols=False))[0] in later[2]
    # A game over: the result screen; the next game's deal: the TV again, with the tally.
    tally = {
        "places": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
        "losses": [0, 0, 1],
        "capped": 0,
        "players": NAMES,
        "timeouts": [0, 0, 0],
    }
    result = {"places": [0, 1, 2], "loser": 2, "capped": False, "players": NAMES}
    over = reduce(m, GameOver(table=1, game=1, result=result, tally=tally))  # type: ignore[arg-type]
    next_game = reduce(over, state(view([], seat=None, hand=None, legal=[], turn=0), game=2))
    text = " ".join(
        line.strip() for line in plain_lines(tv_screen(next_game, width=80, height=24, theme=Theme(symbols=False)))
    )
    assert "Series after 1 game: alice: 1 won, 0 lost greedy-1: 0 won, 0 lost carol: 0 won, 1 lost" in " ".join(
        text.split()
    )
