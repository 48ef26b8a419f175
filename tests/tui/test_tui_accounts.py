"""Accounts screen against the real simulator (issue 5).

acme-sandbox lists (docs/simulator.md): 1001 USD, 1002 EUR, 1003 GBP (small
balance), 1004 CAD inactive, 1090 USD with sandboxMode false (a production
account on a sandbox profile).
"""

from __future__ import annotations

import dataclasses

import pytest
from apps import app_on, demo_profiles, notifications, settle
from textual.widgets import DataTable

from tui.api.client import ServiceClient
from tui.app import AppSettings, build_app

SIZE = (80, 24)
WIDE = (160, 48)


async def open_accounts(pilot) -> DataTable:
    await pilot.press("2")
    await settle(pilot)
    return pilot.app.screen.query_one("#accounts", DataTable)


async def choose(pilot, table: DataTable, account_id: int) -> None:
    row = next(i for i in range(table.row_count) if str(table.get_row_at(i)[1]) == str(account_id))
    table.move_cursor(row=row)
    await pilot.press("enter")
    await pilot.pause()


def row_of(table: DataTable, account_id: int) -> list[str]:
    return next(
        cells for i in range(table.row_count) if (cells := [str(c) for c in table.get_row_at(i)])[1] == str(account_id)
    )


@pytest.mark.parametrize("size", [SIZE, WIDE], ids=["80x24", "160x48"])
def test_every_account_with_balance_and_flags(sim_factory, snap_compare, size):
    sim = sim_factory()  # its own simulator: other tests' orders move the shared one's balances

    async def check(pilot):
        table = await open_accounts(pilot)
        assert table.row_count == 5
        assert row_of(table, 1001)[1:] == ["1001", "USD", "100,000.00 USD", "yes", "sandbox", ""]
        assert row_of(table, 1004)[4:] == ["no", "sandbox", "inactive"]
        assert row_of(table, 1090)[5:] == ["production", "wrong environment"]

    assert snap_compare(app_on(sim), terminal_size=size, run_before=check)


def test_mismatched_and_inactive_accounts_cannot_be_chosen(sim_factory, snap_compare):
    sim = sim_factory()  # its own simulator: other tests' orders move the shared one's balances

    async def check(pilot):
        app = pilot.app
        table = await open_accounts(pilot)
        await choose(pilot, table, 1090)
        await choose(pilot, table, 1004)
        assert app.session.account_id is None and app.context.account is None
        assert notifications(app) == [
            "Account 1090 is a production account and this profile is sandbox: orders would be refused.",
            "Account 1004 is inactive: the service does not accept orders on it.",
        ]

    assert snap_compare(app_on(sim), terminal_size=SIZE, run_before=check)


async def test_choosing_shows_in_the_header_and_survives_a_restart(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        table = await open_accounts(pilot)
        await choose(pilot, table, 1002)
        assert app.session.account_id == 1002 and app.context.account == "1002 EUR"
        assert row_of(table, 1002)[0] == "●"

    again = app_on(sim)  # a new app on the same data dir
    async with again.run_test(size=SIZE) as pilot:
        table = await open_accounts(pilot)
        assert again.session.account_id == 1002 and again.context.account == "1002"
        assert row_of(table, 1002)[0] == "●" and table.cursor_row == 1


async def test_the_choice_does_not_survive_a_switch_to_the_other_environment(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await choose(pilot, await open_accounts(pilot), 1001)
        await app.switch_profile("demo-production")
        await settle(pilot)
        assert app.session.account_id is None and app.context.account is None

    # The same profile name, now pointing at production: the sandbox id must not come back.
    profiles = demo_profiles(sim.base_url)
    profiles["demo-sandbox"] = dataclasses.replace(profiles["demo-production"], name="demo-sandbox")
    moved = build_app(AppSettings(profiles=profiles, profile_name="demo-sandbox"))
    async with moved.run_test(size=SIZE) as pilot:
        table = await open_accounts(pilot)
        assert moved.session.account_id is None
        assert row_of(table, 2001)[5:] == ["production", ""]


async def test_r_asks_again(sim, monkeypatch):
    asked = []
    original = ServiceClient.accounts

    async def counting(self):
        asked.append(1)
        return await original(self)

    monkeypatch.setattr(ServiceClient, "accounts", counting)
    async with app_on(sim).run_test(size=SIZE) as pilot:
        table = await open_accounts(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert len(asked) == 2 and table.row_count == 5 and not table.loading
