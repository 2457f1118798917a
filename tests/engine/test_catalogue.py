"""One catalogue of presets: the engine's accessors, and the docs that list the presets
kept in step with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.engine import Preset, RulesError, make_rules, preset_info, preset_names

ROOT = Path(__file__).resolve().parent.parent.parent


def test_preset_names_classic_first_and_every_name_makes_rules() -> None:
    """preset_names() starts with classic, has no duplicates, and every name builds its rules
    with the catalogue's player range."""
    names = preset_names()
    assert names[0] == "classic" and len(set(names)) == len(names) == 14
    for name in names:
        info = preset_info(name)
        rules = make_rules(name)
        assert isinstance(info, Preset) and info.name == name and info.description
        assert (info.min_players, info.max_players) == (rules.min_players, rules.max_players)


def test_preset_info_is_read_only_and_refuses_unknown_names() -> None:
    """The options of a Preset cannot be changed through it; an unknown name raises RulesError
    that lists the known ones."""
    info = preset_info("linz")
    assert info.options["draw_before_play"] is True
    with pytest.raises(TypeError):
        info.options["draw_before_play"] = False  # type: ignore[index]
    info.options["powers"]["7"].append("burn")  # a copy: the catalogue is untouched
    assert make_rules("linz").powers_of(7) == ("lower",)
    with pytest.raises(RulesError) as exc:
        preset_info("snap")
    assert "classic" in str(exc.value) and "linz" in str(exc.value)


def test_engine_doc_table_is_the_catalogue() -> None:
    """docs/ENGINE.md's table of presets lists exactly the catalogue: names, ranges, descriptions."""
    text = (ROOT / "docs" / "ENGINE.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (\d+)-(\d+) \| (.+) \|$", text, flags=re.M)
    want = [
        (n, str(p.min_players), str(p.max_players), p.description) for n in preset_names() for p in [preset_info(n)]
    ]
    assert rows == want


@pytest.mark.parametrize("doc", ["README.md", "docs/PROTOCOL.md"])
def test_docs_name_every_preset(doc: str) -> None:
    """The README and the protocol document name every preset of the catalogue."""
    text = (ROOT / doc).read_text(encoding="utf-8")
    missing = [n for n in preset_names() if f"`{n}`" not in text]
    assert not missing, f"{doc} does not name {missing}"
