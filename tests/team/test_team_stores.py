"""What only the team store does, on a real PostgreSQL: who wrote each audit entry and where, the
chain found broken by `giftdesk audit verify`, an item settling once for everybody, one watcher
leading, a payout shared without its weblink, the lists kept per profile and environment, and
nothing secret in the tables in clear."""

from __future__ import annotations

import dataclasses
import json

import psycopg
import pytest
from click.testing import CliRunner
from team_support import open_link

from tui.cli import main
from tui.local.inbox import CALLBACK, Delivery
from tui.local.storage import AuditLog
from tui.team.audit import TeamAuditLog
from tui.team.inbox import TeamInbox
from tui.team.notes import TeamNotes
from tui.team.watchlist import TeamWatchList

CARD_CODE = "https://payout.example.test/redeem/Zm9vYmFyYmF6cXV4MTIzNDU2%3D"


def all_table_text(url: str) -> str:
    """Every row of every table of the team database, as text."""
    with psycopg.connect(url) as connection:
        tables = [row[0] for row in connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        return "\n".join(str(row) for table in tables for row in connection.execute(f'SELECT * FROM "{table}"'))


def redeem(log, n: int) -> None:
    log.record(profile="prod", environment="production", action="redeem", subject=f"S{n}", outcome="ok")


def verify(url: str | None = None):
    return CliRunner().invoke(main, ["audit", "verify"], env={"GIFTDESK_DATABASE_URL": url} if url else None)


def test_team_entries_say_who_and_where(link):
    TeamAuditLog(link).record(profile="prod", environment="production", action="redeem", subject="S", outcome="ok")
    [entry] = TeamAuditLog(link).entries()
    assert (entry.who, entry.host) == ("ana", "desk-1")  # type: ignore[attr-defined]


def test_the_team_log_is_append_only_and_a_hand_edited_row_is_found(link, team_url):
    log = TeamAuditLog(link)
    for n in range(4):
        redeem(log, n)
    intact = verify(team_url)
    assert intact.exit_code == 0 and "4 entries, chain and signatures intact" in intact.output

    with psycopg.connect(team_url, autocommit=True) as connection:
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            connection.execute("UPDATE audit SET entry = replace(entry, 'S2', 'S9')")
        # Someone with the owner's rights goes behind the trigger's back.
        connection.execute("ALTER TABLE audit DISABLE TRIGGER audit_append_only")
        third = connection.execute("SELECT id FROM audit ORDER BY id OFFSET 2 LIMIT 1").fetchone()[0]
        connection.execute("UPDATE audit SET entry = replace(entry, '\"ok\"', '\"refused\"') WHERE id = %s", (third,))
    edited = verify(team_url)
    assert edited.exit_code == 1 and f"entry {third}: does not match its hash" in edited.output

    with psycopg.connect(team_url, autocommit=True) as connection:
        connection.execute("DELETE FROM audit WHERE id = %s", (third,))
    removed = verify(team_url)
    assert removed.exit_code == 1 and f"entry {third + 1}: does not match its hash" in removed.output


def test_removing_the_last_rows_of_the_team_log_is_found(link, team_url):
    log = TeamAuditLog(link)
    for n in range(5):
        redeem(log, n)
    with psycopg.connect(team_url, autocommit=True) as connection:
        ids = [row[0] for row in connection.execute("SELECT id FROM audit ORDER BY id")]
        connection.execute("ALTER TABLE audit DISABLE TRIGGER audit_append_only")
        connection.execute(
            "DELETE FROM audit WHERE id >= %s", (ids[3],)
        )  # the last two: the chain before them is whole
        with pytest.raises(psycopg.errors.RaiseException, match="only moves on"):
            connection.execute("UPDATE audit_head SET last_id = %s, entries = 3", (ids[2],))
    cut = verify(team_url)
    assert cut.exit_code == 1
    assert f"the last entries are missing: the log ends at entry {ids[2]}" in cut.output
    assert f"names entry {ids[4]} (2 entries were removed)" in cut.output

    with psycopg.connect(team_url, autocommit=True) as connection:  # every row gone
        connection.execute("DELETE FROM audit")
    emptied = verify(team_url)
    assert emptied.exit_code == 1 and "the log ends at its start (it is empty)" in emptied.output


def test_a_hand_edited_line_of_the_local_log_is_found():
    log = AuditLog()
    for n in range(3):
        redeem(log, n)
    assert verify().exit_code == 0
    lines = log.path.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace('"ok"', '"refused"')
    log.path.write_text("".join(lines))
    broken = verify()
    assert broken.exit_code == 1 and "line 2: does not match its hash" in broken.output


def test_an_item_settles_once_for_everybody_and_says_who_pinned_it(team_database):
    ana, bo = open_link(team_database, "ana"), open_link(team_database, "bo", "desk-2")
    try:
        pinned = TeamWatchList(ana, "production").add("prod", "order", "REQ-1")
        assert TeamWatchList(bo, "production").add("prod", "order", "REQ-1").id == pinned.id  # one list: the same item
        [seen] = TeamWatchList(bo, "production").items("prod")
        assert seen.pinned_by == "ana"
        settled = TeamWatchList(bo, "production").record(pinned.id, "Succeeded", True, "from the callback")
        assert settled is not None and settled.final
        late = TeamWatchList(ana, "production").record(pinned.id, "Processing", False)  # a slower look does not undo it
        assert late is not None and (late.status, late.final, late.detail) == ("Succeeded", True, "from the callback")
    finally:
        ana.close()
        bo.close()


def test_one_watcher_leads_a_profile_and_another_takes_over_when_it_goes(team_database):
    first, second = open_link(team_database, "ana"), open_link(team_database, "bo")
    leader, follower = TeamWatchList(first, "production"), TeamWatchList(second, "production")
    try:
        assert leader.lead("prod") is True and leader.lead("prod") is True
        assert follower.lead("prod") is False
        assert follower.lead("staging") is True  # another profile has its own leader
        leader.close()  # its process ended
        assert follower.lead("prod") is True
    finally:
        follower.close()
        first.close()
        second.close()


def test_a_payout_is_shared_masked_and_looked_up_where_its_weblink_is(team_database, team_url, memory_keyring):
    ana, bo = open_link(team_database, "ana"), open_link(team_database, "bo", "desk-2")
    try:
        pinned = TeamWatchList(ana, "production").add("prod", "payout", CARD_CODE)
        assert (
            pinned.reference == "Zm9vYmFyYmF6cXV4MTIzNDU2%3D" and pinned.pinned_by == "ana"
        )  # ana's giftdesk looks it up
        memory_keyring.passwords.clear()  # bo's machine: another keyring, another seal key
        others = TeamWatchList(bo, "production")
        [seen] = others.items("prod")
        assert (seen.id, seen.kind, seen.label, seen.pinned_by) == (pinned.id, "payout", pinned.label, "ana")
        assert seen.reference == "" and "Zm9v" not in seen.label  # bo sees it, masked, and cannot look it up
        assert (
            others.add("prod", "payout", CARD_CODE).id == pinned.id
        )  # pasted again: the same item, now looked up there too
        assert others.get(pinned.id).reference == pinned.reference  # type: ignore[union-attr]

        settled = others.record(pinned.id, "Completed", True, "transactionId T-1")
        assert settled is not None and settled.final
        late = TeamWatchList(ana, "production").record(pinned.id, "Pending", False)  # settled once for everybody
        assert late is not None and (late.status, late.final) == ("Completed", True)
        with psycopg.connect(team_url) as connection:
            assert connection.execute("SELECT sealed FROM watch_items WHERE id = %s", (pinned.id,)).fetchone() == (
                None,
            )
    finally:
        ana.close()
        bo.close()


def test_a_sandbox_and_a_production_profile_of_one_name_do_not_see_each_others_items(team_database, link):
    sandbox, production = TeamWatchList(link, "sandbox"), TeamWatchList(link, "production")
    try:
        pinned = sandbox.add("acme", "order", "REQ-1")
        assert production.items("acme") == [] and production.settle_order("acme", "REQ-1", "Succeeded") is None
        assert production.add("acme", "order", "REQ-1").id != pinned.id  # two lists: two items
        assert sandbox.lead("acme") and production.lead("acme")  # and a leader each
        heard = {
            "what": "watch",
            "profile": "acme",
            "environment": "sandbox",
            "id": pinned.id,
            "item": dataclasses.asdict(pinned),
        }
        assert production.heard(heard) is None and sandbox.heard(heard) == pinned
    finally:
        sandbox.close()
        production.close()
    TeamNotes(link, "sandbox").add("acme", "REQ-1", "called the sandbox customer")
    assert TeamNotes(link, "production").for_order("acme", "REQ-1") == []
    assert TeamNotes(link, "production").noted_orders("acme") == {}
    delivery = Delivery.accepted_now("callback:REQ-1", CALLBACK, {"requestId": "REQ-1"}, "127.0.0.1")
    assert TeamInbox(link, "acme", "sandbox").keep(delivery)
    assert TeamInbox(link, "acme", "production").since() == []
    assert TeamInbox(link, "acme", "production").keep(delivery)  # its own event ids


def test_nothing_secret_reaches_the_tables_in_clear(link, team_url):
    secrets = [
        "Zm9vYmFyYmF6cXV4MTIzNDU2",
        "jane.doe@example.com",
        "5551234567",
        "ABCD-EFGH-IJKL-9876",
        "83917264",
        "+15559876543",
        "the-callback-secret-123",
    ]
    TeamAuditLog(link).record(
        profile="prod",
        environment="production",
        action="redeem",
        subject=CARD_CODE,
        outcome="ok",
        wallet="Venmo",
        recipient="+15551234567",
        detail="sent to jane.doe@example.com",
    )
    TeamNotes(link, "production").add(
        "prod",
        "REQ-1",
        f"re-sent {CARD_CODE} to jane.doe@example.com, code ABCD-EFGH-IJKL-9876 pin 83917264, "
        "called +15559876543 about 3f2c1a9e-0b4d-4e6f-8a1b-2c3d4e5f6a7b",
    )
    body = {
        "requestId": "REQ-1",
        "secretKey": "the-callback-secret-123",
        "cards": [{"cardCode": "ABCD-EFGH-IJKL-9876", "pin": "83917264", "recipientEmail": "jane.doe@example.com"}],
    }
    TeamInbox(link, "prod", "production").keep(Delivery.accepted_now("callback:REQ-1", CALLBACK, body, "127.0.0.1"))
    TeamWatchList(link, "production").add("prod", "payout", CARD_CODE)  # its token sealed, its digest the reference
    text = all_table_text(team_url)
    assert "REQ-1" in text and json.dumps("redeem") in text  # the tables were read
    assert "3f2c1a9e-0b4d-4e6f-8a1b-2c3d4e5f6a7b" in text  # a RequestId in a note is kept
    for secret in secrets:
        assert secret not in text, secret


def test_removing_the_last_lines_of_the_local_log_is_found():
    log = AuditLog()
    for n in range(4):
        redeem(log, n)
    lines = log.path.read_text().splitlines(keepends=True)
    log.path.write_text("".join(lines[:2]))
    cut = verify()
    assert cut.exit_code == 1 and "the last entries are missing: the log ends at line 2" in cut.output
    log.path.unlink()
    gone = verify()
    assert gone.exit_code == 1 and "the log ends at its start (it is empty)" in gone.output


def test_audit_pending_lists_the_teams_unknown_outcomes_until_checked(link, team_url):
    """Issue 35, break 9, in team mode: an attempt no outcome followed (its giftdesk killed) is pending for the
    whole team, with its check, until a line of the same write settles it."""
    import json

    log = TeamAuditLog(link)
    check = "check: giftdesk order show 0e7c6a3e-1111-4d5e-9f00-6a1b2c3d4e5f"
    subject = "0e7c6a3e-1111-4d5e-9f00-6a1b2c3d4e5f"
    log.record(
        profile="p", environment="sandbox", action="place-order", subject=subject, outcome="attempt", detail=check
    )

    def pending() -> list[dict]:
        listed = CliRunner().invoke(main, ["audit", "pending", "--json"], env={"GIFTDESK_DATABASE_URL": team_url})
        assert listed.exit_code == 0, listed.output
        return json.loads(listed.output)

    [entry] = pending()
    assert entry["subject"] == subject and entry["check"] == f"giftdesk order show {subject}"
    log.record(profile="p", environment="sandbox", action="place-order", subject=subject, outcome="checked: Succeeded")
    assert pending() == []
