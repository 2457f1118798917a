"""The name rule (protocol.names): the names people use are taken, lookalikes fold together,
and what makes a name unreadable is refused with a reason."""

from __future__ import annotations

import pytest

from protocol.names import MAX_NAME, name_error, name_key, normalize_name

PEOPLE = [
    "Anna Maria",
    "Zoë",
    "Mum's phone",
    "🦊 Fox",
    "O’Brien-Smith",
    "Ελένη",
    "李小龍",
    "👩‍👩‍👧",
    "👍🏽 Jo",
    "dana_2",
    "J. R.",
]


@pytest.mark.parametrize("name", PEOPLE)
def test_names_people_use_are_valid(name: str) -> None:
    assert name_error(normalize_name(name)) is None


@pytest.mark.parametrize(
    ("raw", "kept"),
    [("  Anna   Maria ", "Anna Maria"), ("Zoe\u0308", "Zoë"), ("a\tb", "a b")],
)
def test_names_are_kept_in_nfc_trimmed_with_single_spaces(raw: str, kept: str) -> None:
    assert normalize_name(raw) == kept


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "at least one"),
        ("A" * (MAX_NAME + 1), "at most 24"),
        ("a\u200eb", "format character (U+200E)"),  # a direction mark
        ("a\u200db", "format character (U+200D)"),  # a joiner between letters
        ("\u0301a", "combining mark"),
        ("a<b", "'<'"),
        ("x@y", "'@'"),
    ],
)
def test_unreadable_names_are_refused_with_a_reason(name: str, why: str) -> None:
    problem = name_error(name)
    assert problem is not None and why in problem


def test_protocol_names_of_version_1_stay_valid_and_keep_their_keys() -> None:
    for name in ["alice", "Bob_2", "x", "a-b", "A" * 24]:
        assert name_error(name) is None
        assert name_key(name) == name.lower()


@pytest.mark.parametrize(("a", "b"), [("Dana", "ＤＡＮＡ"), ("Dana", "dana"), ("Zoë", "ZOË"), ("Zoë", "Zoe\u0308")])
def test_lookalikes_share_a_key(a: str, b: str) -> None:
    assert name_key(a) == name_key(b)


def test_different_names_have_different_keys() -> None:
    assert len({name_key(n) for n in PEOPLE}) == len(PEOPLE)
