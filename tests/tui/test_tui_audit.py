"""The Audit screen: the log newest first, `/` filters, the highlighted entry in full (issue 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apps import app_on, export_shown, notifications, screen_lines
from textual.widgets import DataTable, Static

from tui.screens.audit import AuditScreen
from widgets.filter_bar import RowFilter

SIZE = (80, 24)

# Written as the AuditLog stores them (masked), with fixed times for the snapshot.
ENTRIES = [
    {
        "time": "2026-03-01T09:15:02+00:00",
        "profile": "demo-sandbox",
        "environment": "sandbox",
        "action": "redeem",
        "subject": "https://payouts.sim.giftdesk.test/redeem/****9A2M",
        "outcome": "completed",
        "wallet": "PayPal",
        "recipient": "a****@****.com",
        "detail": "HTTP 200; transactionId SIMTX-1; payoutBatchId SIMBATCH-1",
    },
    {
        "time": "2026-03-01T09:16:40+00:00",
        "profile": "demo-sandbox",
        "environment": "sandbox",
        "action": "redeem",
        "subject": "https://payouts.sim.giftdesk.test/redeem/****9A2M",
        "outcome": "refused: Recipient ID does not match",
        "wallet": "PayPal",
        "recipient": "b****@****.com",
        "detail": "An earlier attempt used a different recipient: re-submit with that recipient.",
    },
    {
        "time": "2026-03-01T10:02:11+00:00",
        "profile": "demo-production",
        "environment": "production",
        "action": "new-order",
        "subject": "6f1c0a55-order",
        "outcome": "placed",
    },
    {
        "time": "2026-03-01T10:05:59+00:00",
        "profile": "demo-production",
        "environment": "production",
        "action": "redeem",
        "subject": "https://payouts.sim.giftdesk.test/redeem/****Q7xw",
        "outcome": "unknown: POST /api/Integration/v2/payout/redeem/****Q7xw: timed out",
        "wallet": "Venmo",
        "recipient": "+****0001",
        "detail": "status checked before any retry",
    },
]


@pytest.fixture(autouse=True)
def audit_file(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "audit.jsonl"  # conftest's isolated_dirs: the data dir
    path.parent.mkdir()
    path.write_text("".join(json.dumps(entry) + "\n" for entry in ENTRIES))
    return path


async def open_audit(app, pilot) -> AuditScreen:
    await app.navigate("audit")
    await pilot.pause(0.2)
    assert isinstance(app.screen, AuditScreen)
    return app.screen


def rows(screen: AuditScreen) -> list[str]:
    table = screen.query_one(DataTable)
    return [str(table.get_row_at(index)[3]) for index in range(table.row_count)]  # the outcome column


async def test_lists_newest_first_and_shows_the_highlighted_entry_in_full(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(app, pilot)
        assert rows(screen) == [entry["outcome"] for entry in reversed(ENTRIES)]
        detail = str(screen.query_one("#audit-detail", Static).render())
        assert "timed out" in detail and "status checked before any retry" in detail and "production" in detail
        await pilot.press("down")
        assert "placed" in str(screen.query_one("#audit-detail", Static).render())


async def test_slash_filters_on_any_field_and_escape_clears(sim):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(app, pilot)
        await pilot.press("slash", *"venmo")
        assert rows(screen) == [ENTRIES[3]["outcome"]]
        assert "1 of 4" in str(screen.query_one("#audit-summary", Static).render())
        screen.query_one(RowFilter).value = "REFUSED"
        await pilot.pause()
        assert rows(screen) == [ENTRIES[1]["outcome"]]
        await pilot.press("escape")
        assert len(rows(screen)) == 4 and screen.query_one(DataTable).has_focus
        assert app.screen is screen  # escape closed the filter, it did not leave the screen


async def test_new_entries_show_on_the_next_visit(sim, audit_file):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(app, pilot)
        await app.navigate("help")
        with audit_file.open("a") as log:
            log.write(
                json.dumps(
                    {**ENTRIES[0], "time": "2026-03-02T08:00:00+00:00", "outcome": "completed (existing payout)"}
                )
                + "\n"
            )
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert rows(screen)[0] == "completed (existing payout)"


async def test_an_empty_log_says_what_is_recorded(sim, audit_file):
    audit_file.unlink()
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(app, pilot)
        assert "No audit entries yet" in str(screen.query_one("#audit-summary", Static).render())
        assert not screen.query_one("#audit-detail").display  # no empty pane wasting lines (issue 26's walk)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_snapshot_audit(sim, snap_compare, audit_file, size):
    app = app_on(sim)

    async def run_before(pilot) -> None:
        screen = await open_audit(app, pilot)
        # Filtered, the summary counts matches instead of naming the log's (tmp) path.
        await pilot.press("slash", *"redeem", "enter")
        assert len(rows(screen)) == 3

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("fmt", ["csv", "json"])
async def test_e_exports_the_rows_as_shown_into_a_private_folder(sim, tmp_path: Path, fmt: str):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(app, pilot)
        path = await export_shown(pilot, fmt, tmp_path / "data")
        assert str(path) in " ".join(str(message) for message in notifications(app))
        text = path.read_bytes().decode()
        shown = rows(screen)
        if fmt == "json":
            assert [record["Outcome"] for record in json.loads(text)] == shown
        else:
            assert text.count("\r\n") == len(shown) + 1 and shown[0] in text


async def test_escape_in_the_export_dialog_writes_nothing(sim, tmp_path: Path):
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        await open_audit(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not (tmp_path / "data" / "exports").exists()


async def test_an_attempt_without_an_outcome_shows_as_outcome_unknown_with_its_check(sim, audit_file):
    """A write killed while it waited (kill -9) left only its attempt line: that is its trace (issue 24, item 3)."""
    attempt = {
        "time": "2026-03-02T08:00:00+00:00",
        "profile": "demo-sandbox",
        "environment": "sandbox",
        "action": "place-order",
        "subject": "0e7c6a3e-1111-4d5e-9f00-6a1b2c3d4e5f",
        "outcome": "attempt",
        "detail": "account 1001, product 101, value 25 x 1; check: giftdesk order show 0e7c6a3e-1111-4d5e-9f00-6a1b2c3d4e5f",
    }
    with audit_file.open("a") as log:
        log.write(json.dumps(attempt) + "\n")
    app = app_on(sim)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_audit(app, pilot)
        assert rows(screen)[0].startswith("outcome unknown")
        detail = str(screen.query_one("#audit-detail", Static).render())
        assert (
            "outcome unknown" in detail and "check: giftdesk order show 0e7c6a3e-1111-4d5e-9f00-6a1b2c3d4e5f" in detail
        )


async def test_columns_are_sized_by_content_so_a_wide_terminal_cuts_nothing(sim, audit_file):
    # Issue 39 item 8: at 160 columns a RequestId subject showed as `5ddd8330-52e7-4882-` beside a 40-column
    # empty Outcome, and `notification-change` as `notificatio`.
    order = "5ddd8330-52e7-4882-9a3c-0c2b1f6e8d41"
    audit_file.write_text(
        "".join(
            json.dumps({**entry, "time": "2026-03-01T10:00:00+00:00", "profile": "demo-sandbox"}) + "\n"
            for entry in (
                {"environment": "sandbox", "action": "new-order", "subject": order, "outcome": "placed"},
                {
                    "environment": "sandbox",
                    "action": "notification-change",
                    "subject": "notification configuration",
                    "outcome": "saved; read-back matches",
                },
            )
        )
    )
    app = app_on(sim)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_audit(app, pilot)
        await pilot.pause(0.1)
        lines = screen_lines(app)
        assert any(order in line for line in lines) and any("notification-change" in line for line in lines)
        assert any("notification configuration" in line for line in lines)
