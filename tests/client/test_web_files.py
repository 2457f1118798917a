"""The files the web client gets from the running server (client/web.generated_files)."""

from __future__ import annotations

import json

from client.web import FILES, ROOT, generated_files
from server.engine import preset_info


def test_catalog_and_join_code() -> None:
    files = generated_files("http://192.0.2.7:7433/", ["classic", "karma"], ["greedy"])
    ctype, body = files["/catalog.json"]
    assert ctype.startswith("application/json")
    catalog = json.loads(body)
    assert (catalog["bots"], catalog["join"]) == (["greedy"], "http://192.0.2.7:7433/")
    # Each preset as the lobby shows it: the engine's description and player range, and the
    # values of the options the form offers (karma's own where it differs from classic).
    assert [{k: v for k, v in p.items() if k != "values"} for p in catalog["presets"]] == [
        {"name": name, "description": p.description, "min_players": p.min_players, "max_players": p.max_players}
        for name in ("classic", "karma")
        for p in [preset_info(name)]
    ]
    classic, karma = (p["values"] for p in catalog["presets"])
    assert {k for k in classic if classic[k] != karma[k]} == {"karma_stacking", "after_pickup"}
    assert karma["after_pickup"] == "previous" and classic["burn_count"] == 4
    # The options as form controls: every one labelled and explained, of a kind a form can show.
    forms = {f["name"]: f for f in catalog["options"]}
    assert set(forms) == set(classic)
    assert forms["burn_count"] | {"label": "", "help": ""} == {
        "name": "burn_count",
        "kind": "int",
        "min": 0,
        "max": 12,
        "label": "",
        "help": "",
    }
    assert forms["goal"]["choices"] == ["loser", "winner"] and forms["ten_anywhere"]["kind"] == "bool"
    assert all(f["label"] and f["help"] for f in forms.values())
    ctype, svg = files["/join.svg"]
    assert ctype.startswith("image/svg+xml")
    assert svg.startswith(b"<svg") and svg.rstrip().endswith(b"</svg>")


def test_the_pages_and_their_modules_are_there() -> None:
    """Every page and every module a page or module imports exists (no build step to catch it)."""
    for page in ("index.html", "tv.html"):
        text = (ROOT / page).read_text()
        for ref in ("style.css", "js/"):
            assert ref in text
    for module in (ROOT / "js").glob("*.js"):
        for line in module.read_text().splitlines():
            if line.startswith("import ") and " from " in line:
                target = line.rsplit(" from ", 1)[1].strip(' ";')
                assert (module.parent / target).is_file(), (module.name, target)


def test_the_served_list_is_the_client_itself() -> None:
    """FILES names every file of the web client (no more, no less): the server serves that list
    only, so a file missing from it would be a page that never loads."""
    on_disk = {
        p.relative_to(ROOT).as_posix()
        for p in ROOT.rglob("*")
        if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
    }
    assert set(FILES) == on_disk
