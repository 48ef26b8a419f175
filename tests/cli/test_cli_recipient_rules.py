"""A recipient error says the spec's own text, then the rule in words (DESIGN rule 2: the texts come from
tests/spec_cases.py, the table the client, the simulator and the TUI are tested with)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from spec_cases import PAYOUT_CASES

from tui.cli import main


def check(*args: str):
    return CliRunner().invoke(main, ["payout", "check", *args], catch_exceptions=False)


def check_args(body: dict) -> list[str]:
    args = ["--wallet", body["wallet"]] if body.get("wallet") is not None else []
    for field, option in (
        ("recipientEmail", "--email"),
        ("recipientPhone", "--phone"),
        ("recipientHandle", "--handle"),
    ):
        if body.get(field) is not None:
            args += [option, body[field]]
    return args


@pytest.mark.parametrize("case", [c for c in PAYOUT_CASES if c.body and c.error], ids=lambda c: c.name)
def test_every_spec_text_is_followed_by_its_rule(case):
    result = check(*check_args(case.body))
    lines = result.stderr.splitlines()
    assert result.exit_code == 2 and lines[0] == case.error  # the spec's text stays first, as it was
    assert len(lines) == 2 and lines[1].startswith("hint: ") and len(lines[1]) > len("hint: ") + 20


def test_a_short_handle_says_what_a_handle_is_and_how_long_this_one_is():
    result = check("--wallet", "Venmo", "--handle", "@jane")
    assert result.stderr.splitlines() == [
        "Invalid recipient user handle.",
        "hint: A handle is an optional @ then 5 to 30 letters, digits, _ or - (e.g. @jane_doe). "
        "This one has 4 characters without the @.",
    ]


def test_a_phone_with_spaces_says_digits_only():
    lines = check("--wallet", "Venmo", "--phone", "+1 987 12").stderr.splitlines()
    assert lines[0] == "Invalid recipient phone number."
    assert "7 to 15 digits, no spaces or dashes" in lines[1] and "This one has 6 digits." in lines[1]
    assert "987" not in lines[1]  # the recipient itself is never repeated (rule 6)


@pytest.mark.parametrize(("typed", "proper"), [("venmo", "Venmo"), ("PAYPAL", "PayPal")])
def test_a_wallet_in_the_wrong_case_says_the_case_is_what_is_wrong(typed, proper):
    lines = check("--wallet", typed, "--email", "ann@example.com").stderr.splitlines()
    assert lines == [
        "A valid wallet (PayPal or Venmo) is required.",
        f"hint: Only the case is wrong: write {proper}, not {typed}.",
    ]


def test_json_gives_the_rule_beside_the_problem():
    result = check("--wallet", "Venmo", "--handle", "@jane", "--json")
    verdict = json.loads(result.stdout)
    assert verdict["problem"] == "Invalid recipient user handle." and verdict["rule"].startswith("A handle is")
