"""Issue 35 in the browser (the real server, headless chromium): the page keeps a login token the
server can end, never the password; "Log out" ends it; the name rule is said and checked on
the page; the names people use are shown as typed, on the player's page and on the TV page."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver

from protocol.names import NAME_RULE
from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, tap, until
from tests.web.wsclient import WsClient

PASSWORD = "correct horse battery staple"
NAMES = ["Anna Maria", "Zoë", "Mum's phone", "🦊 Fox"]


def type_text(driver: WebDriver, selector: str, text: str) -> None:
    """Type ``text`` into the field as a keyboard (or an IME, for emoji) would: the field gets
    the focus, then the text is inserted (chromedriver's send_keys cannot type emoji)."""
    field = css(driver, selector)[0]
    field.clear()
    field.click()
    driver.execute_cdp_cmd("Input.insertText", {"text": text})
    assert field.get_attribute("value") == text


def web_storage(driver: WebDriver) -> dict[str, dict[str, str]]:
    """Every key and value the page keeps, in localStorage and in sessionStorage."""
    found: dict[str, dict[str, str]] = driver.execute_script(
        "return {local: Object.fromEntries(Object.entries(localStorage)),"
        " session: Object.fromEntries(Object.entries(sessionStorage))}"
    )
    return found


def free_seats(n: int) -> Callable[[WebDriver], bool]:
    """The waiting room offers a bot for ``n`` free seats."""
    return lambda d: len(css(d, ".add-bot button")) == n


def log_in(driver: WebDriver, url: str, name: str, password: str = "") -> None:
    """The name screen: type a name (and a password), Enter, and wait for the lobby."""
    driver.get(url)
    until(driver, lambda d: css(d, "#name"))
    type_text(driver, "#name", name)
    if password:
        css(driver, "#password")[0].send_keys(password)
    tap(driver, "#enter")
    until(driver, lambda d: css(d, "#me") and css(d, "#me")[0].text == name)


def test_the_page_keeps_a_login_token_not_the_password(live_server: LiveServer, browser: Browser) -> None:
    """An account logs in and sits down: localStorage (and sessionStorage) hold no password under
    any key, only the login token; a reload is back at the seat with nothing typed (the account's
    name is registered, so only the token can have logged it in); "Log out" ends the token on the
    server (a login with it gets AUTH_FAILED) and here, while the seat stays held on the server
    (its token still resumes it); a page holding the ended token shows the name screen again; a
    password kept by the page's older version is used once and dropped."""
    server = live_server()
    driver = browser(360, 640, mobile=True)
    log_in(driver, server.url, "carol", PASSWORD)
    tap(driver, "#create")
    until(driver, lambda d: css(d, ".add-bot button"))
    for left in (2, 1, 0):
        tap(driver, ".add-bot button")
        until(driver, free_seats(left))
    tap(driver, "#start")
    until(driver, lambda d: css(d, ".mine .name"))

    kept = web_storage(driver)
    for where, items in kept.items():
        for key, value in items.items():
            assert PASSWORD not in key and PASSWORD not in value, (where, key)
            assert "password" not in key.lower() and '"password"' not in value, (where, key, value)
    assert not driver.get_cookies()
    profile: dict[str, Any] = json.loads(kept["local"]["shithead.profile"])
    assert sorted(profile) == ["guest", "name", "token"] and profile["name"] == "carol" and not profile["guest"]
    token = profile["token"]
    seats: dict[str, str] = json.loads(kept["local"]["shithead.seats"])
    [(table, seat_token)] = seats.items()

    driver.refresh()  # no typing afterwards
    until(driver, lambda d: css(d, ".mine .name") and css(d, ".mine .name")[0].text == "carol (you)")
    assert not css(driver, "#name")
    assert all(PASSWORD not in value for items in web_storage(driver).values() for value in items.values())

    tap(driver, ".table-head .back")  # (in a game the table has the whole screen: log out from the lobby)
    tap(driver, "#logout")
    tap(driver, "#logout-confirm")  # (this device holds a seat: the page asks first)
    until(driver, lambda d: css(d, "#name"))
    after = web_storage(driver)
    assert all(token not in value and seat_token not in value for items in after.values() for value in items.values())
    assert json.loads(after["local"]["shithead.profile"]) is None
    assert css(driver, "#logout")[0].get_attribute("hidden") is not None

    raw = WsClient(server.port)
    try:
        refused = raw.request({"type": "login", "name": "carol", "login_token": token})
        assert (refused["type"], refused["code"]) == ("error", "AUTH_FAILED"), refused
    finally:
        raw.close()
    other_device = WsClient(server.port)
    try:
        other_device.ok({"type": "login", "name": "carol", "password": PASSWORD})
        joined = other_device.ok({"type": "resume", "table": int(table), "token": seat_token})
        assert joined["type"] == "joined"
    finally:
        other_device.close()

    # A page that still holds the ended token (as a tab saved before the logout): the name
    # screen, saying why, with the name ready.
    driver.execute_script("localStorage.setItem('shithead.profile', arguments[0])", json.dumps(profile))
    driver.refresh()
    until(driver, lambda d: css(d, "#login-refusal"))
    assert "log in again" in css(driver, "#login-refusal")[0].text
    assert css(driver, "#name")[0].get_attribute("value") == "carol"
    assert "token" not in json.loads(web_storage(driver)["local"]["shithead.profile"])

    # A profile with a password, as this page kept it before login tokens: the password logs in
    # once more, and is stored no longer (the token it gets is).
    old = {"name": "carol", "password": PASSWORD}
    driver.execute_script("localStorage.setItem('shithead.profile', arguments[0])", json.dumps(old))
    driver.refresh()
    until(driver, lambda d: css(d, "#me") and css(d, "#me")[0].text == "carol")
    kept = web_storage(driver)
    assert all(PASSWORD not in value for items in kept.values() for value in items.values())
    assert sorted(json.loads(kept["local"]["shithead.profile"])) == ["guest", "name", "token"]


def test_the_page_says_the_name_rule_and_offers_a_free_name(live_server: LiveServer, browser: Browser) -> None:
    """The rule is under the name field; a name against it is refused on the page with the
    reason; a name somebody holds gets the server's NAME_TAKEN message and a button with the
    free name it suggests, which then logs in."""
    server = live_server()
    dana = WsClient(server.port)
    try:
        dana.ok({"type": "login", "name": "Dana", "guest": True})
        driver = browser(360, 640, mobile=True)
        driver.get(server.url)
        until(driver, lambda d: css(d, "#name"))
        assert css(driver, "#name-rule")[0].text == NAME_RULE
        assert css(driver, "#name")[0].get_attribute("aria-describedby") == "name-rule"

        type_text(driver, "#name", "<Dana>")
        tap(driver, "#enter")
        until(driver, lambda d: css(d, "#name-refusal")[0].text)
        assert "a name cannot hold '<'" in css(driver, "#name-refusal")[0].text
        assert css(driver, "#name") and not css(driver, "#connecting")  # nothing was sent

        type_text(driver, "#name", "dana")
        tap(driver, "#enter")
        until(driver, lambda d: css(d, "#login-refusal"))
        assert "somebody else is dana" in css(driver, "#login-refusal")[0].text
        assert css(driver, "#suggestion")[0].text == "Use “dana 2”"
        tap(driver, "#suggestion")
        assert css(driver, "#name")[0].get_attribute("value") == "dana 2"
        tap(driver, "#enter")
        until(driver, lambda d: css(d, "#me") and css(d, "#me")[0].text == "dana 2")
        assert css(driver, "#who")[0].text == "dana 2"
    finally:
        dana.close()


def test_names_people_use_are_shown_as_typed_on_the_page_and_the_tv(live_server: LiveServer, browser: Browser) -> None:
    """Each of "Anna Maria", "Zoë", "Mum's phone" and "🦊 Fox" logs in on a phone, is shown as
    typed (header, lobby, seat) and takes a seat at one table (then logs out, but for the last:
    the seat stays held); the game starts, and the TV page and the last player's page show
    every name as typed."""
    server = live_server()
    host = WsClient(server.port)
    try:
        host.ok({"type": "login", "name": "host", "guest": True})
        table = host.ok({"type": "create_table", "name": "names", "preset": "classic", "seats": 4})["table"]
        tv = browser(1280, 720)
        tv.get(f"{server.url}tv?table={table}")
        until(tv, lambda d: "names" in css(d, "#who")[0].text)

        phone = browser(360, 640, mobile=True)
        for i, name in enumerate(NAMES):
            log_in(phone, server.url, name)
            assert css(phone, "#who")[0].text == name
            tap(phone, f'.table-row[data-table="{table}"] button.primary')  # Join
            until(phone, lambda d: css(d, ".seats li"))
            assert css(phone, ".seats li")[i].text == f"{name} (you)"
            if name != NAMES[-1]:
                tap(phone, "#logout")
                tap(phone, "#logout-confirm")
                until(phone, lambda d: css(d, "#name"))

        host.ok({"type": "start", "table": table})
        until(tv, lambda d: [el.text for el in css(d, ".seat .name")] == NAMES)
        until(phone, lambda d: css(d, ".mine .name") and css(d, ".mine .name")[0].text == f"{NAMES[-1]} (you)")
        assert [el.text for el in css(phone, ".seat .name")] == NAMES[:-1]
        # Shown whole on the TV; on a phone a name may be cut with an ellipsis where a tile is
        # narrow (a 24-character name must not widen the table: issue 31, point 7), and then its
        # whole is in the tile's title.
        shown = "return [...document.querySelectorAll('.seat .name, .mine .name, #who')]"
        wider = ".filter((el) => el.scrollWidth > el.clientWidth)"
        clipped = tv.execute_script(f"{shown}{wider}.map((el) => el.textContent)")
        assert clipped == []
        cut = phone.execute_script(f"{shown}{wider}.map((el) => [el.textContent, el.title])")
        assert all(text == title and text in NAMES for text, title in cut), cut
    finally:
        host.close()
