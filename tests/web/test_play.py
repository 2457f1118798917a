"""A guest's evening in a phone-sized browser against the real server: name, a new table, bots,
a whole game played by tapping (a selection the rules refuse disables Play, with the reason in
words), a reload and a kill -9 of the server in the middle, and the page back in the seat each
time without a touch."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.live_server import LiveServer
from tests.web.conftest import Browser

WAIT = 30.0  # seconds: only against a hang (a busy 2-core machine runs a server, bots and a browser)
CODE = re.compile(r"\b[A-Z]{2,}_[A-Z_]+\b|\(C\d+\)")  # an error code or a rule number: never shown to players


def css(driver: WebDriver, selector: str) -> list[Any]:
    return driver.find_elements(By.CSS_SELECTOR, selector)


def until(driver: WebDriver, condition: Callable[[WebDriver], Any], timeout: float = WAIT) -> Any:
    """Wait for ``condition(driver)`` to be true (re-checked as the page changes; a page re-drawn
    under the check counts as not yet)."""
    return WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def text_of(driver: WebDriver, selector: str) -> str | None:
    """The text of the first element ``selector`` finds, read in one step of the page (a table
    that bots keep playing at re-draws it between finding an element and reading it)."""
    text: str | None = driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;", selector
    )
    return text


def seq(driver: WebDriver) -> int:
    mine = css(driver, ".mine[data-seq]")
    return int(mine[0].get_attribute("data-seq")) if mine else -1


def tap(driver: WebDriver, selector: str) -> None:
    """Click the first element matching ``selector``, found again if the page re-drew it
    between finding and clicking (the page draws itself anew on every message)."""

    def click(d: WebDriver) -> bool:
        found = css(d, selector)
        if not found:
            return False
        el = found[0]
        if "card" in (el.get_attribute("class") or "").split():
            # A card is tapped where a finger would: its top-left corner, which shows its rank and
            # suit even when a large hand overlaps the cards like a fan.
            d.execute_script("arguments[0].scrollIntoView({block: 'nearest'})", el)
            corner = (6 - el.size["width"] // 2, 10 - el.size["height"] // 2)  # (offsets from the centre)
            ActionChains(d).move_to_element_with_offset(el, *corner).click().perform()
        else:
            el.click()
        return True

    until(driver, click)


def sit_down_with_bots(driver: WebDriver, url: str, name: str, *, swap: bool = False) -> None:
    """Name -> lobby -> a new classic table of 4 -> three bots -> start -> (a swap) -> ready."""
    driver.get(url)
    until(driver, lambda d: css(d, "#name"))
    css(driver, "#name")[0].send_keys(name)
    tap(driver, "#enter")
    tap(driver, "#create")  # (once logged in: the lobby shows "Connecting" before)
    until(driver, lambda d: css(d, ".add-bot button"))
    for left in (2, 1, 0):
        tap(driver, ".add-bot button")
        until(driver, lambda d, n=left: len(css(d, ".add-bot button")) == n)
    assert next(li.text for li in css(driver, ".seats li")).endswith("(you)")
    assert css(driver, "#start")[0].is_enabled()  # every seat taken: the game can start
    deal_and_ready(driver, swap=swap)


def deal_and_ready(driver: WebDriver, *, swap: bool = False) -> None:
    """The owner deals (start, or the next game) -> (a swap) -> ready."""
    tap(driver, "#start")
    until(driver, lambda d: css(d, '[data-action="ready"]'))
    if swap:
        # Setup by touch: a hand card, then a card on the table: they change places.
        hand_card = css(driver, ".hand button.card")[0].get_attribute("data-card")
        table_card = css(driver, ".my-table .stack button.card")[0].get_attribute("data-card")
        tap(driver, f'.hand button.card[data-card="{hand_card}"]')
        tap(driver, f'.my-table .stack button.card[data-card="{table_card}"]')
        until(driver, lambda d: css(d, ".my-table .stack button.card")[0].get_attribute("data-card") == hand_card)
        assert table_card in [c.get_attribute("data-card") for c in css(driver, ".hand button.card")]
    tap(driver, '[data-action="ready"]')
    until(driver, lambda d: css(d, '.mine[data-phase="play"]') or css(d, ".game-over"))


def my_turn(driver: WebDriver) -> bool:
    return bool(css(driver, ".mine.turn .your-move"))


def pick_up(driver: WebDriver) -> None:
    """Tap "Pick up the pile", and "Yes" when the page asks (it does when a play was possible)."""
    before = seq(driver)
    tap(driver, '[data-action^="take"]')
    until(driver, lambda d: seq(d) > before or css(d, "#take-confirm") or css(d, ".game-over"))
    if css(driver, "#take-confirm"):
        tap(driver, "#take-confirm")


def one_move(driver: WebDriver, *, take: bool = False) -> None:
    """Tap one move as a player would: the lowest playable card, else a card on the table, else
    pick up, else turn a face-down card over (``take``: pick up whenever allowed). Waits until
    the server answered it (a new state)."""
    before = seq(driver)
    can_take = css(driver, '[data-action^="take"]')
    if take and can_take:
        pick_up(driver)
    elif css(driver, ".hand button.card.playable"):
        tap(driver, ".hand button.card.playable")
        tap(driver, "#play")
    elif css(driver, ".my-table button.card.playable"):
        tap(driver, ".my-table button.card.playable")
        tap(driver, "#play")
    elif can_take:
        pick_up(driver)
    else:
        tap(driver, ".my-table .downs button")
    until(driver, lambda d: seq(d) > before or css(d, ".game-over") or css(d, "#refusal"))
    assert not css(driver, "#refusal"), css(driver, "#refusal")[0].text


def try_a_refused_play(driver: WebDriver) -> str | None:
    """If a hand card cannot be played now, tap it: Play must be disabled, with the reason in
    words beside it (nothing is sent). Returns the reason."""
    if not css(driver, ".hand button.card:not(.playable)") or not css(driver, ".pile .card.top"):
        return None
    tap(driver, ".hand button.card:not(.playable)")
    until(driver, lambda d: css(d, ".hand button.card.selected"))
    assert not css(driver, "#play")[0].is_enabled()
    text: str = css(driver, "#play-reason")[0].text
    assert css(driver, "#play")[0].get_attribute("aria-describedby") == "play-reason"
    tap(driver, ".hand button.card.selected")  # unselect it: the next move starts from nothing selected
    return text


def play_to_the_end(driver: WebDriver, *, on_move: Callable[[int], None] | None = None) -> dict[str, Any]:
    moves, refusal = 0, None
    while not css(driver, ".game-over"):
        until(driver, lambda d: my_turn(d) or css(d, ".game-over"))
        if css(driver, ".game-over"):
            break
        if refusal is None:
            refusal = try_a_refused_play(driver)
        one_move(driver)
        moves += 1
        if on_move is not None:
            on_move(moves)
    return {"moves": moves, "refusal": refusal}


def test_a_guest_plays_a_whole_game_by_tapping(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    driver = browser(360, 640, mobile=True)
    sit_down_with_bots(driver, server.url, "alice", swap=True)
    reloaded: list[int] = []

    def reload_once(moves: int) -> None:
        if moves == 3 and not reloaded:
            before = seq(driver)
            lines = len(css(driver, ".feed li"))
            driver.refresh()  # as a phone that reloads the page: no tap afterwards
            until(driver, lambda d: seq(d) >= before or css(d, ".game-over"))
            assert len(css(driver, ".feed li")) >= lines > 1  # the tab kept the game's feed
            reloaded.append(before)

    out = play_to_the_end(driver, on_move=reload_once)
    assert reloaded, "the game ended before the reload"
    over = css(driver, ".game-over")[0].text
    assert "shithead" in over and "alice (you)" in over  # the places list names every player
    if "alice (you)" in css(driver, ".game-over .loser")[0].text:
        assert "you are the shithead" in over  # the second person for the reader
    assert len(css(driver, ".final-board .seat")) == 4  # the final board stays in view
    assert css(driver, ".tally")[0].get_attribute("data-games") == "1"
    assert css(driver, "#start")  # the owner may deal the next game
    # A refused play needs a turn with a hand card that does not beat the pile; about one deal in
    # 26 gives none (3,000 simulated games of greedy play), so the next deals are played until one
    # does (the chance that five in a row give none is below 1 in 10 million).
    refusal, games = out["refusal"], 1
    while refusal is None and games < 5:
        deal_and_ready(driver)
        refusal = play_to_the_end(driver)["refusal"]
        games += 1
    assert refusal is not None, f"no moment to try a refused play came up in {games} games"
    assert "does not beat the pile" in refusal and not CODE.search(refusal), refusal


def test_the_page_comes_back_after_kill_9(live_server: LiveServer, browser: Browser) -> None:
    """The server is killed (SIGKILL) in the middle of a game and started again: the page
    reconnects, logs in, resumes the seat and plays on, with no touch."""
    server = live_server()
    driver = browser(360, 640, mobile=True)
    sit_down_with_bots(driver, server.url, "bob")
    for _ in range(2):
        until(driver, lambda d: my_turn(d) or css(d, ".game-over"))
        if css(driver, ".game-over"):
            break
        one_move(driver)
    assert not css(driver, ".game-over"), "the game ended before the kill"
    before = seq(driver)
    server.kill()
    until(driver, lambda d: "reconnecting" in css(d, "#status")[0].text)
    server.restart()
    # Back by itself: the status line is gone and the seat's state is the one it had (the server
    # acknowledged nothing it lost), or a later one if a bot has played since.
    until(driver, lambda d: not css(d, "#status")[0].text and seq(d) >= before)
    assert "bob (you)" in (text_of(driver, ".mine .name") or "")
    play_to_the_end(driver)
    assert "the shithead" in css(driver, ".game-over")[0].text


def test_a_second_tab_takes_the_seat_and_the_first_takes_it_back(live_server: LiveServer, browser: Browser) -> None:
    """The same browser (one localStorage, one token) in two tabs: the tab opened last resumes
    the seat; the other says so, and "Back to my seat" takes it back. The seat is never lost."""
    server = live_server()
    driver = browser(360, 640, mobile=True)
    sit_down_with_bots(driver, server.url, "erin")
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(server.url)
    until(driver, lambda d: css(d, ".mine .name"))  # the new tab is at the table by itself
    assert "erin (you)" in (text_of(driver, ".mine .name") or "")
    second = driver.current_window_handle
    driver.switch_to.window(first)
    until(driver, lambda d: css(d, ".table-row button.primary"))  # back in the lobby
    assert css(driver, ".table-row button.primary")[0].text == "Back to my seat"
    tap(driver, ".table-row button.primary")
    until(driver, lambda d: css(d, ".mine .name"))
    assert "erin (you)" in (text_of(driver, ".mine .name") or "")
    driver.switch_to.window(second)
    until(driver, lambda d: css(d, ".table-row button.primary"))
