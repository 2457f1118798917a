"""Issue 35, item 1, over the WebSocket a browser uses (the real server, no browser): typing the
owner's name gets nobody the owner's table."""

from __future__ import annotations

from protocol.names import name_error, name_key
from tests.live_server import LiveServer
from tests.web.wsclient import WsClient


def test_a_second_guest_dana_is_refused_and_cannot_start_danas_table(live_server: LiveServer) -> None:
    """Guest "Dana" is online and owns a table. Another connection asking for the guest "Dana",
    "ＤＡＮＡ" or "dana" gets NAME_TAKEN with a free name to use instead; logged in under that
    name, its start of Dana's table gets NOT_OWNER (and Dana's own start goes through)."""
    server = live_server()
    dana = WsClient(server.port)
    impostor = WsClient(server.port)
    try:
        assert dana.ok({"type": "login", "name": "Dana", "guest": True})["name"] == "Dana"
        table = dana.ok({"type": "create_table", "name": "Dana's table", "preset": "classic", "seats": 3})["table"]
        dana.ok({"type": "join", "table": table})
        dana.ok({"type": "add_bot", "table": table, "bot": "random"})

        suggestion = None
        for name in ("Dana", "ＤＡＮＡ", "dana"):
            refused = impostor.request({"type": "login", "name": name, "guest": True})
            assert (refused["type"], refused["code"]) == ("error", "NAME_TAKEN"), refused
            suggestion = refused["suggestion"]
            assert name_error(suggestion) is None and name_key(suggestion) != name_key("Dana"), suggestion
        assert suggestion is not None
        # (the connection stayed open through the refusals) The name offered is free:
        assert impostor.ok({"type": "login", "name": suggestion, "guest": True})["name"] == suggestion
        impostor.ok({"type": "join", "table": table})  # a player at the table, not its owner

        refused = impostor.request({"type": "start", "table": table})
        assert (refused["type"], refused["code"]) == ("error", "NOT_OWNER"), refused
        dana.ok({"type": "start", "table": table})  # the table could start: it was the owner's alone
    finally:
        impostor.close()
        dana.close()
