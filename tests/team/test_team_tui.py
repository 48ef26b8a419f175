"""Two giftdesks on one team profile (two apps, two engineers, one PostgreSQL): a pin, a note and an
order settled by a callback on one show on the other, heard through LISTEN/NOTIFY; the database
going away is said in the header and survived."""

from __future__ import annotations

import contextlib
import dataclasses
import json

import psycopg
import pytest
from apps import app_on, notifications, rendered, screen_lines, until
from team_support import as_login, operator_database
from watch_support import payout_code, place

from tui.local.storage import audit_log
from tui.simulator.settings import TIMING_PRESETS
from tui.team.database import TeamDatabase, migrate
from tui.team.mode import TeamMode

SIZE = (100, 30)
PROFILE = "demo-sandbox"


def hears_the_team(app) -> bool:
    return app.team_follower is not None and app.team_follower.listening


@contextlib.asynccontextmanager
async def two_giftdesks(sim, database):
    ana = TeamMode(operator_database(database, "ana"), user="Ana A.", host="desk-1")  # `user`: a display name only
    bo = TeamMode(operator_database(database, "bo"), user="ana", host="desk-2")  # claiming to be ana changes nothing
    first, second = app_on(sim, team=ana), app_on(sim, team=bo)
    try:
        async with first.run_test(size=SIZE) as pilot, second.run_test(size=SIZE) as other:
            for app, each in ((first, pilot), (second, other)):
                await until(
                    each,
                    lambda app=app: hears_the_team(app),
                )
                app.watch_list  # noqa: B018 (asking for it starts it now)
            yield (first, pilot), (second, other)
    finally:
        ana.close()
        bo.close()


def header(app) -> str:
    return rendered(app.screen, "ContextBar")


async def test_a_pin_a_note_and_a_callback_made_on_one_show_on_the_other(sim_factory, team_database):
    sim = sim_factory(timing=TIMING_PRESETS["fast"].replace(pause_seconds=3600.0))
    pending = place(sim, "10.14")  # a Paused card that does not resume: only the callback settles it here
    async with two_giftdesks(sim, team_database) as ((ana, _), (bo, bo_pilot)):
        assert "team" in header(ana) and "team" in header(bo)

        ana.watch_list.add_order(pending)
        await until(bo_pilot, lambda: "watching 1" in header(bo), timeout=15)
        [seen] = bo.watch_list.items()
        assert seen.pinned_by == "ana"  # ana's login: her config's name is "Ana A.", bo's claims "ana"
        await bo.navigate("watch")
        await until(bo_pilot, lambda: any("Pinned by" in line for line in screen_lines(bo)), timeout=5)
        assert any(pending in line and " ana " in line for line in screen_lines(bo))  # its row: who pinned it

        await bo.navigate("order", pending)
        ana.notes.add(PROFILE, pending, "customer called 10:42, [b]code[/b] re-sent")
        await until(bo_pilot, lambda: "customer called 10:42" in rendered(bo.screen, "#order-notes"), timeout=15)
        shown = rendered(bo.screen, "#order-notes")
        assert "ana: customer called 10:42, [b]code[/b] re-sent" in shown  # literally, markup and all

        assert ana.watch_list.settle_order(
            pending, "Succeeded", "settled by event callback:1"
        )  # an order event, processed
        await until(bo_pilot, lambda: any(f"{pending} ended Succeeded" in n for n in notifications(bo)), timeout=15)
        [settled] = bo.watch_list.items()
        assert settled.final and settled.detail == "settled by event callback:1"


async def test_one_giftdesk_polls_and_the_other_follows_its_results(sim, team_database):
    order = place(sim, "10.00")  # Succeeds after a few looks
    async with two_giftdesks(sim, team_database) as ((ana, ana_pilot), (bo, bo_pilot)):
        await until(ana_pilot, lambda: ana.watch_list.leading or bo.watch_list.leading)
        assert ana.watch_list.leading != bo.watch_list.leading  # exactly one leads
        ana.watch_list.add_order(order)
        for app, pilot in ((ana, ana_pilot), (bo, bo_pilot)):
            await until(
                pilot, lambda app=app: any(f"{order} ended Succeeded" in n for n in notifications(app)), timeout=10
            )


async def test_a_payout_pinned_on_one_is_looked_up_there_and_ends_on_both(sim, team_database, memory_keyring):
    code = payout_code(sim, "ann@example.com")  # PayPal: Completed at its first look
    async with two_giftdesks(sim, team_database) as ((ana, ana_pilot), (bo, bo_pilot)):
        await until(ana_pilot, lambda: ana.watch_list.leading or bo.watch_list.leading)
        # Pinned where it does not lead: the giftdesk holding the weblink looks it up all the same.
        pinner, (other, other_pilot) = (bo, (ana, ana_pilot)) if ana.watch_list.leading else (ana, (bo, bo_pilot))
        pinned = pinner.watch_list.add_payout(code)
        # Each is told once, in a toast that stays 5 s: a loaded machine may tell one after the other's has gone.
        told: set[int] = set()

        def both_told() -> bool:
            told.update(
                id(app)
                for app in (pinner, other)
                if any(f"Payout {pinned.label} ended Completed" in n for n in notifications(app))
            )
            return len(told) == 2

        await until(other_pilot, both_told, timeout=15)
        [seen] = other.watch_list.items()
        assert (seen.kind, seen.label, seen.final, seen.pinned_by) == ("payout", pinned.label, True, pinned.pinned_by)


async def test_the_database_going_away_is_said_reads_fall_back_money_is_refused_and_all_resumes(sim, own_cluster):
    database = TeamDatabase(own_cluster.create_database())
    migrate(database)
    pending = place(sim, "10.14")
    team = TeamMode(operator_database(database, "ana"), user="ana", host="desk-1")
    app = app_on(sim, team=team)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(
                pilot,
                lambda: hears_the_team(app),
            )
            app.watch_list.add_order(pending)
            await app.navigate("order", pending)
            app.notes.add(PROFILE, pending, "customer called 10:42")
            await until(pilot, lambda: "customer called" in rendered(app.screen, "#order-notes"), timeout=15)

            own_cluster.stop()
            await until(pilot, lambda: "team database unreachable, retrying" in header(app), timeout=10)
            assert [item.reference for item in app.watch_list.items()] == [pending]  # what was last seen
            assert [note.body for note in app.notes.for_order(PROFILE, pending)] == ["customer called 10:42"]
            with pytest.raises(OSError, match="unreachable"):  # a money action's audit line: so the action is not sent
                audit_log().record(
                    profile=PROFILE, environment="sandbox", action="redeem", subject="S", outcome="attempt"
                )
            await pilot.press("w")  # pinning says why it cannot, rather than failing
            await pilot.pause()
            assert any("not pinned" in n and "unreachable" in n for n in notifications(app))

            own_cluster.start()
            await until(
                pilot, lambda: "unreachable" not in header(app), timeout=30
            )  # the link looks again every few seconds; a loaded machine is slower
            assert "team" in header(app)
            audit_log().record(profile=PROFILE, environment="sandbox", action="redeem", subject="S", outcome="attempt")
            app.notes.add(PROFILE, pending, "back again")
            await until(pilot, lambda: "back again" in rendered(app.screen, "#order-notes"), timeout=15)
    finally:
        team.close()


async def test_a_notification_from_a_login_with_no_rights_changes_nothing(sim_factory, team_database, team_url):
    """A NOTIFY is a hint (DESIGN rule 13): anyone who may connect can send one, so what is shown, toasted,
    counted and settled comes from the row read back, and a notification naming no readable row changes nothing."""
    sim = sim_factory(timing=TIMING_PRESETS["fast"].replace(pause_seconds=3600.0))
    pending = place(sim, "10.14")  # a Paused card that does not resume: Pending for the whole test
    with psycopg.connect(team_url, autocommit=True) as owner:
        owner.execute(
            "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mallory') THEN"
            " CREATE ROLE mallory LOGIN; END IF; END $$"
        )
    team = TeamMode(operator_database(team_database, "ana"), user="ana", host="desk-1")
    app = app_on(sim, team=team)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(
                pilot,
                lambda: hears_the_team(app),
            )
            item = app.watch_list.add_order(pending)
            await until(pilot, lambda: app.watch_list.leading and "watching 1" in header(app), timeout=15)
            with psycopg.connect(as_login(team_database, "mallory").url, autocommit=True) as mallory:
                with pytest.raises(psycopg.errors.InsufficientPrivilege):
                    mallory.execute("SELECT * FROM watch_items")  # no rights on any table
                told = {"what": "watch", "profile": PROFILE, "environment": "sandbox", "id": item.id}
                ended = {**dataclasses.asdict(item), "status": "Succeeded", "final": True, "detail": "trust me"}
                for forged in ({**told, "item": ended}, {**told, "id": item.id + 1000, "item": {**ended, "id": 1}}):
                    mallory.execute("SELECT pg_notify('giftdesk', %s)", (json.dumps(forged),))
            looks = len(sim.requests("get_order"))
            await until(pilot, lambda: len(sim.requests("get_order")) >= looks + 2, timeout=30)  # still polled
            await pilot.pause(0.3)
            assert not any("ended" in n for n in notifications(app))
            assert "watching 1" in header(app)
            [still] = app.watch_list.items()
            assert (still.id, still.final) == (item.id, False)
            assert still.status != "Succeeded" and still.detail != "trust me"
    finally:
        team.close()


async def test_the_audit_screen_says_who_wrote_each_entry_and_where_and_which_it_could_not_read(
    sim, team_database, team_url
):
    from textual.widgets import DataTable

    from tui.local.storage import TEST_ORDER
    from tui.team.audit import TeamAuditLog

    order = "5ddd8330-52e7-4882-9a3c-0c2b1f6e8d41"
    ana = TeamMode(operator_database(team_database, "ana"), user="ana", host="desk-1")
    bo = TeamMode(operator_database(team_database, "bo"), user="bo", host="desk-2")
    try:
        ana.audit.record(profile=PROFILE, environment="sandbox", action=TEST_ORDER, subject=order, outcome="placed")
        bad = TeamAuditLog(ana.link).append(PROFILE, "sandbox", json.dumps({"who": "ana", "time": 5}))
        audit_log().record(
            profile=PROFILE,
            environment="sandbox",
            action="notification-change",
            subject="notification configuration",
            outcome="saved; read-back matches",
        )  # bo's: the audit store of the last team mode opened
        app = app_on(sim, team=bo)
        async with app.run_test(size=(160, 48)) as pilot:
            await app.navigate("audit")
            table = app.screen.query_one(DataTable)
            await until(pilot, lambda: table.row_count == 2)
            await pilot.pause(0.2)
            lines = "\n".join(screen_lines(app))
            assert f"1 entry unreadable (id {bad})" in lines  # and the two others shown
            assert "bo@desk-2" in lines and "ana@desk-1" in lines  # the stamped logins, not the configs' names
            assert order in lines and "notification-change" in lines  # sized by content: nothing cut at 160
            await pilot.press("down")
            await pilot.pause(0.1)
            assert "by ana on desk-1" in rendered(app.screen, "#audit-detail")
    finally:
        ana.close()
        bo.close()


async def test_a_note_typed_while_the_database_is_down_stays_in_its_dialog_and_is_kept_when_it_is_back(
    sim, own_cluster
):
    """Issue 35, break 7: the note is not thrown away; the dialog says why it was not kept, enter tries again."""
    from widgets.note_dialog import NoteDialog

    database = TeamDatabase(own_cluster.create_database())
    migrate(database)
    pending = place(sim, "10.14")
    team = TeamMode(operator_database(database, "ana"), user="ana", host="desk-1")
    app = app_on(sim, team=team)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(
                pilot,
                lambda: hears_the_team(app),
            )
            await app.navigate("order", pending)
            await pilot.pause()
            own_cluster.stop()
            await until(pilot, lambda: "team database unreachable, retrying" in header(app), timeout=10)

            await pilot.press("m")
            await until(pilot, lambda: isinstance(app.screen, NoteDialog))
            dialog = app.screen
            await pilot.press(*"customer called 10:42", "enter")
            await until(pilot, lambda: "Not kept" in rendered(dialog, "#note-problem"))
            assert app.screen is dialog and dialog.query_one("#note-text").value == "customer called 10:42"

            own_cluster.start()
            order_screen = app.screen_stack[-2]
            await until(pilot, lambda: "unreachable" not in rendered(order_screen, "ContextBar"), timeout=15)
            await pilot.press("enter")
            await until(pilot, lambda: app.screen is not dialog)
            await until(pilot, lambda: "customer called 10:42" in rendered(app.screen, "#order-notes"), timeout=15)
    finally:
        team.close()
