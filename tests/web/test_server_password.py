"""A server with a password of its own (``--password``): the game page asks for it when the
server refuses a login without it, and again when it was wrong (``AUTH_FAILED`` with reason
``SERVER_PASSWORD``), keeps it on the device so that a reload logs in by itself, and the read-only
pages of that device log in with it; a device that was never given it is told where to enter it."""

from __future__ import annotations

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, tap, text_of, until

SECRET = "kitchen table"


def test_the_game_page_asks_for_the_server_password_and_keeps_it(live_server: LiveServer, browser: Browser) -> None:
    live_server.options = (*live_server.options, "--password", SECRET)
    server = live_server()
    driver = browser(390, 844, mobile=True)
    driver.get(server.url)
    until(driver, lambda d: css(d, "#name"))
    assert not css(driver, "#server-password")  # nothing asked before the server says so
    css(driver, "#name")[0].send_keys("Ann")
    tap(driver, "#enter")

    until(driver, lambda d: css(d, "#server-password"))
    assert "has a password of its own" in (text_of(driver, "#login-refusal") or "")
    css(driver, "#server-password")[0].send_keys("wrong guess")
    tap(driver, "#enter")
    until(driver, lambda d: "not the server's password" in (text_of(d, "#login-refusal") or ""))
    assert css(driver, "#server-password")  # asked again

    css(driver, "#server-password")[0].send_keys(SECRET)
    tap(driver, "#enter")
    until(driver, lambda d: css(d, "#create"))  # in the lobby, logged in as Ann
    assert "Ann" in (text_of(driver, "body") or "")

    driver.refresh()  # the token and the kept server password log in again, nothing asked
    until(driver, lambda d: css(d, "#create"))
    assert not css(driver, "#server-password") and not css(driver, "#name")

    driver.get(f"{server.url}ladder")  # a read-only page of the same device: in, not refused
    until(driver, lambda d: "No ladder game has been played yet." in (text_of(d, "#screen") or ""))
    assert not css(driver, ".refusal")

    stranger = browser(1280, 720)  # another device, never given the password
    stranger.get(f"{server.url}ladder")
    until(stranger, lambda d: "enter it once on this device" in (text_of(d, "body") or ""))
