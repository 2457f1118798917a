"""Names people use, end to end (issue 35): "Zoë" and "🦊 Fox" each run the real ``shithead``
program in a real 80x24 terminal (tmux) against a real server on 127.0.0.1, with "Anna Maria"
and "Mum's phone" at the same table over the protocol; both screens show the four names exactly,
the columns after them in place and no line wider than 80 cells. Then a game played by the four
names: its record (``get_record``), the client's ``record`` line and the real ``shithead replay``
give the names back exactly as the server keeps them (NFC), though "Zoë" was sent decomposed.

Waiting is on conditions (the server's state, the screens' text) checked again at every change
of a terminal or message to a protocol client; nothing waits a guessed amount of time.
"""

from __future__ import annotations

import asyncio
import os
import unicodedata
from pathlib import Path
from typing import Any

from prompt_toolkit.utils import get_cwidth

from client.cli.app import _record_words
from client.sdk import Client
from tests.client.cli.terminal import SHITHEAD, Terminal, messages_of, until
from tests.server.client import TestClient, make_table, play_until_over, short_seeds

ANNA, ZOE, MUM, FOX = "Anna Maria", "Zo\u00eb", "Mum's phone", "\U0001f98a Fox"
NAMES = [ANNA, ZOE, MUM, FOX]
ZOE_DECOMPOSED = "Zoe\u0308"
SEED4 = short_seeds("classic", 4, 1, max_len=250)[0]
GUARD = 60.0  # seconds: only against a hang


def player_rows(screen: str) -> list[str]:
    return [line for line in screen.splitlines() if " hand " in line and " up " in line]


def check_screen(screen: str, me: str) -> None:
    """The four names exactly, one player row each with "hand" in the same cell, ``me`` in the
    header, every line within 80 cells and 24 lines."""
    lines = screen.splitlines()
    assert len(lines) <= 24 and all(get_cwidth(line) <= 80 for line in lines), screen
    assert me in lines[0], screen
    rows = player_rows(screen)
    assert len(rows) == 4, screen
    for name in NAMES:
        assert sum(name in row for row in rows) == 1, f"{name!r} not in one row:\n{screen}"
    assert len({get_cwidth(row[: row.index(" hand ")]) for row in rows}) == 1, screen


async def test_zoe_and_the_fox_see_the_table_in_real_terminals(
    make_app: Any, terminal: Terminal, tmp_path: Path
) -> None:
    app = await make_app()
    anna = await TestClient.connect(app.port, name=ANNA)
    await anna.login()
    mum = await TestClient.connect(app.port, name=MUM)
    await mum.login()
    news = [messages_of(anna, terminal.changes), messages_of(mum, terminal.changes)]
    (tmp_path / "fox").mkdir()
    fox = Terminal(tmp_path / "fox")
    fox.changes = terminal.changes  # one event for both terminals' output
    address = f"127.0.0.1:{app.port}"
    try:
        terminal.run(SHITHEAD, address, "--name", ZOE, "--guest", size=(80, 24))
        fox.run(SHITHEAD, address, "--name", FOX, "--guest", size=(80, 24))
        await until(terminal.changes, lambda: "Lobby" in terminal.screen(), what="Zoë's lobby")
        await until(terminal.changes, lambda: "Lobby" in fox.screen(), what="the fox's lobby")
        assert f"Welcome, {ZOE}." in terminal.screen() and f"{FOX} @ {address}" in fox.screen()

        terminal.keys("create classic 4", "Enter")
        await until(terminal.changes, lambda: "You sit at table" in terminal.screen(), what="Zoë at her table")
        (t,) = app.tables
        fox.keys(f"join {t}", "Enter")
        await until(terminal.changes, lambda: app.tables[t].seats[1] is not None, what="the fox sits")
        await anna.ok({"type": "join", "table": t, "seat": 2}, "joined")
        await mum.ok({"type": "join", "table": t, "seat": 3}, "joined")
        assert [s.name for s in app.tables[t].seats if s is not None] == [ZOE, FOX, ANNA, MUM]
        waiting = await until(
            terminal.changes,
            lambda: (s := fox.screen()) and MUM in s and "seat  3" in s and s,
            what="the fox's screen with every seat taken",
        )
        for name in NAMES:
            assert name in waiting
        terminal.keys("start", "Enter")
        for term, me in ((terminal, ZOE), (fox, FOX)):

            def dealt(term: Terminal = term) -> str | None:
                screen = term.screen()
                return screen if "Setup" in screen and len(player_rows(screen)) == 4 else None

            check_screen(await until(terminal.changes, dealt, what=f"the deal on {me}'s screen"), me)
    finally:
        fox.close()
        fox.release()
        await anna.close()
        await mum.close()
    await asyncio.gather(*news)


async def test_a_record_gives_the_names_back_as_the_server_keeps_them(make_app: Any) -> None:
    app = await make_app()
    sent = [ANNA, ZOE_DECOMPOSED, MUM, FOX]
    players = [await TestClient.connect(app.port, name=n) for n in sent]
    reader = await Client.connect("127.0.0.1", app.port)
    try:
        logged = [(await p.login())["name"] for p in players]
        assert logged == NAMES  # "Zoë" composed (NFC), the others as sent
        t = await make_table(players, seed=SEED4)
        played = await play_until_over(players, t, timeout=GUARD)
        assert played["errors"] == []
        over = played["game_over"][0]
        assert over["result"]["players"] == NAMES
        await reader.login("Record reader", guest=True)
        stored = await reader.get_record(over["game"])
    finally:
        for p in players:
            await p.close()
        await reader.close()
    assert list(stored["players"]) == NAMES
    assert all(unicodedata.is_normalized("NFC", n) for n in stored["players"])
    places = [NAMES[s] for s in over["result"]["places"]]
    assert f"places {', '.join(places)};" in _record_words(stored)  # the client's 'record N' line

    # The real program, as a user runs it: every step printed as text.
    replay = await asyncio.create_subprocess_exec(
        SHITHEAD,
        "replay",
        "--server",
        f"127.0.0.1:{app.port}",
        str(over["game"]),
        "--print",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    out, err = await asyncio.wait_for(replay.communicate(), GUARD)
    assert replay.returncode == 0, err.decode()
    text = out.decode("utf-8")
    lines = text.splitlines()
    for name in NAMES:
        assert name in text
    assert ZOE_DECOMPOSED not in text
    assert all(get_cwidth(line) <= 80 for line in lines)
    last = text.rstrip().split("\n\n")[-1]
    assert f" Over: {', '.join(places)}. {NAMES[over['result']['loser']]} is the shithead." in last
    rows = [line for line in last.splitlines() if any(line[2:].startswith(n) for n in NAMES)]
    assert len(rows) == 4 and all(get_cwidth(row[:2]) == 2 for row in rows)
