"""The harness itself: the real server serves the web client to a headless chromium, phone and TV sized."""

from __future__ import annotations

from pathlib import Path

from tests.live_server import LiveServer
from tests.web.conftest import Browser

WEB = Path(__file__).resolve().parent.parent.parent / "client" / "web"


def test_phone_loads_the_client(live_server: LiveServer, browser: Browser, tmp_path: Path) -> None:
    server = live_server()
    driver = browser(360, 640, mobile=True)
    driver.get(server.url)
    assert "Shithead" in driver.title
    assert driver.execute_script("return [window.innerWidth, window.innerHeight]") == [360, 640]
    assert driver.execute_script("return navigator.maxTouchPoints") > 0
    shot = tmp_path / "phone.png"
    assert driver.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 100
    assert (int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")) == (360, 640)  # IHDR


def test_tv_page_is_served(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    driver = browser(1280, 720)
    driver.get(server.url + "tv")
    assert driver.execute_script("return [window.innerWidth, window.innerHeight]") == [1280, 720]
    assert driver.execute_script("return document.readyState") == "complete"
    assert "no such page" not in driver.page_source
    assert (WEB / "tv.html").read_text() in driver.page_source or "tv.js" in driver.page_source


def test_the_server_prints_the_address_to_open_and_its_qr_code(live_server: LiveServer) -> None:
    """Joining is one step: the start-up lines give the address for a phone, and a QR code
    drawn with block characters (segno makes it from that address)."""
    server = live_server()
    assert server.stop() == 0
    lines = [line.rstrip("\n") for line in server.output]
    assert any(f"open {server.url} " in line for line in lines), lines
    qr = [line for line in lines if line and set(line) <= set("█▀▄ ")]
    # Two rows of modules per line: a QR code is at least 21 modules high, plus its border.
    assert len(qr) >= 11 and len({len(line) for line in qr}) == 1, qr


def test_restart_keeps_port_and_database(live_server: LiveServer) -> None:
    server = live_server()
    port, db = server.port, server.db
    server.kill()
    server.restart()
    assert (server.port, server.db) == (port, db) and server.running
    assert server.stop() == 0
    assert not server.running
