"""Any ID finds the order (DESIGN.md "Command line contract"): each form, and what is said when it cannot."""

from __future__ import annotations

import pytest

from tui.core.order_ids import AmbiguousOrderId, KnownOrder, UnknownOrderId, order_number, resolve

A = "3f2a9c1e-0b7d-4c1a-9e8f-1234567890ab"
B = "3f2a9c1e-77aa-4bbb-8ccc-abcdefabcdef"
C = "9d8e7f60-1111-4222-8333-444455556666"
KNOWN = [
    KnownOrder(A, "O-00500199", ("SN0007000204",), "orders"),
    KnownOrder(B, None, (), "recent"),
    KnownOrder(C, "O-00500200", (), "transactions"),
]


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        (A, A),  # a whole RequestId is taken as it is
        ("O-00500199", A),
        ("o-00500199", A),
        ("500199", A),
        ("  500200 ", C),
        ("3f2a9c1e-0b", A),  # a unique start, 8 characters or more
        ("9D8E7F60", C),  # any case
        ("SN0007000204", A),  # a card serial seen
        ("sn0007000204", A),
    ],
)
def test_each_form_finds_its_order(typed, found):
    assert resolve(typed, KNOWN) == found


def test_a_whole_request_id_nobody_knows_is_left_to_the_service():
    unknown = "00000000-0000-4000-8000-000000000000"
    assert resolve(unknown, KNOWN) == unknown


def test_an_ambiguous_start_names_the_candidates():
    with pytest.raises(AmbiguousOrderId) as raised:
        resolve("3f2a9c1e", KNOWN)
    assert {c.request_id for c in raised.value.candidates} == {A, B}
    assert A in str(raised.value) and "O-00500199" in str(raised.value) and B in str(raised.value)


@pytest.mark.parametrize("typed", ["O-00500999", "3f2a9c1f", "abc", "", "SN9"])
def test_unknown_ids_say_what_to_do(typed):
    with pytest.raises(UnknownOrderId) as raised:
        resolve(typed, KNOWN)
    assert "RequestId" in str(raised.value)


def test_the_same_order_from_several_sources_is_one_candidate():
    seen_twice = [*KNOWN, KnownOrder(A.upper(), "O-00500199", ("SN0007000205",), "seen")]
    assert resolve("3f2a9c1e-0b", seen_twice) == A
    assert resolve("SN0007000205", seen_twice) == A


def test_order_numbers_are_the_services_spelling():
    assert order_number(500199) == "O-00500199"
