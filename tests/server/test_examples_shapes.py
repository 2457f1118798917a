"""The message examples in ``protocol.messages.EXAMPLES`` show the shapes the server really
sends: the keys of every map-shaped field match a real game's frames."""

from __future__ import annotations

from typing import Any

from protocol.messages import EXAMPLES
from tests.server.client import make_table, play_until_over


def keys(d: dict[str, Any]) -> set[str]:
    return set(d)


async def test_examples_have_the_real_shapes(app: Any, players: Any) -> None:
    """welcome.limits, table summaries and their seats, game_over.result and .tally, and the
    record (with its inner record) have exactly the keys of what the server sends."""
    a, b = await players(app, ["shape_a", "shape_b"])
    t = await make_table([a, b], seed=3)
    over = (await play_until_over([a, b], t))["game_over"][0]
    record = (await a.ok({"type": "get_record", "game": over["game"]}, "record"))["record"]
    summary = (await a.ok({"type": "list_tables"}, "tables"))["tables"][0]
    welcome = next(f for f in a.frames if f["type"] == "welcome")

    ex_summary = EXAMPLES["tables"].tables[0]  # type: ignore[attr-defined]
    assert keys(EXAMPLES["welcome"].limits) == keys(welcome["limits"])  # type: ignore[attr-defined]
    assert set(EXAMPLES["welcome"].capabilities) == set(welcome["capabilities"])  # type: ignore[attr-defined]
    assert keys(ex_summary) == keys(summary)
    assert keys(ex_summary["seats"][0]) == keys(summary["seats"][0])
    assert EXAMPLES["table_update"].summary == ex_summary  # type: ignore[attr-defined]
    assert keys(EXAMPLES["game_over"].result) == keys(over["result"])  # type: ignore[attr-defined]
    assert keys(EXAMPLES["game_over"].tally) == keys(over["tally"])  # type: ignore[attr-defined]
    ex_record = EXAMPLES["record"].record  # type: ignore[attr-defined]
    assert keys(ex_record) == keys(record)
    assert keys(ex_record["record"]) == keys(record["record"])
    assert keys(ex_record["result"]) == keys(record["result"])
