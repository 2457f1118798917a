"""Issue 31, point 4 ("options are typed as raw JSON"): the new-table form offers each option of
the rules as a labelled control (a checkbox, a number, a menu) set to the chosen preset's values;
a table opened after changing two of them has exactly those two options (read back from the
server over its own protocol), and a preset chosen afterwards sets the controls to its values."""

from __future__ import annotations

from selenium.webdriver.support.ui import Select

from tests.live_server import LiveServer
from tests.web.conftest import Browser
from tests.web.test_play import css, tap, until
from tests.web.test_setup import enter
from tests.web.wsclient import WsClient


def test_house_rules_are_form_controls_and_only_the_changes_are_sent(live_server: LiveServer, browser: Browser) -> None:
    server = live_server()
    driver = browser(360, 640, mobile=True)
    enter(driver, server.url, "alice")
    until(driver, lambda d: css(d, "#create"))
    tap(driver, "#house-rules summary")
    burn = css(driver, "#opt-burn_count")[0]
    ten = css(driver, "#opt-ten_anywhere")[0]
    assert burn.get_attribute("type") == "number" and burn.get_attribute("value") == "4"
    assert ten.get_attribute("type") == "checkbox" and ten.is_selected()
    labels = driver.execute_script(
        "return [...document.querySelectorAll('.house-rule-list [data-option]')]"
        ".filter((c) => !document.querySelector(`label[for=${c.id}]`)).map((c) => c.id)"
    )
    assert labels == [], f"controls without a label: {labels}"

    # Another preset sets the controls to its own values (wikibooks: 5 burn, no 10 on a face card).
    Select(css(driver, "#preset")[0]).select_by_value("wikibooks")
    assert css(driver, "#opt-burn_count")[0].get_attribute("value") == "5"
    assert not css(driver, "#opt-ten_anywhere")[0].is_selected()
    Select(css(driver, "#preset")[0]).select_by_value("classic")
    assert css(driver, "#opt-burn_count")[0].get_attribute("value") == "4"

    burn = css(driver, "#opt-burn_count")[0]
    burn.clear()
    burn.send_keys("0")
    tap(driver, "#opt-ten_anywhere")
    Select(css(driver, "#opt-goal")[0]).select_by_value("loser")  # (unchanged: not sent)
    tap(driver, "#create")
    until(driver, lambda d: css(d, ".add-bot button"))

    reader = WsClient(server.port)
    try:
        reader.ok({"type": "login", "name": "reader", "guest": True})
        tables = reader.ok({"type": "list_tables"})["tables"]
        [table] = [t for t in tables if t["owner"] == "alice"]
        assert table["preset"] == "classic"
        assert table["options"] == {"burn_count": 0, "ten_anywhere": False}, table["options"]
    finally:
        reader.close()
