"""The team database trusts no one (DESIGN rule 13), tried on a real PostgreSQL as a teammate with bad
intent, a stolen operator's login, a login with no rights at all, and the tables' owner:
refused by the database, or named by `giftdesk audit verify`."""

from __future__ import annotations

import json

import psycopg
import pytest
from click.testing import CliRunner
from team_support import as_login, open_link, operator_database

from tui.cli import main
from tui.local.storage import chain_hash, entry_json, new_entry
from tui.team.audit import TeamAuditLog
from tui.team.database import TeamDatabase, TeamDatabaseError
from tui.team.notes import TeamNotes
from tui.team.watchlist import TeamWatchList


def verify(database: TeamDatabase):
    return CliRunner().invoke(main, ["audit", "verify"], env={"GIFTDESK_DATABASE_URL": database.url})


@pytest.fixture
def two_operators(team_database):
    ana, bo = open_link(team_database, "ana"), open_link(team_database, "bo", "desk-2")
    yield ana, bo
    ana.close()
    bo.close()


def four_entries(ana, bo) -> list[int]:
    """ana and bo each place two orders (outcome "placed"); the entries' ids, oldest first."""
    for n, link in enumerate((ana, bo, ana, bo)):
        TeamAuditLog(link).record(
            profile="prod", environment="production", action="new-order", subject=f"REQ-{n}", outcome="placed"
        )
    with ana.connection() as connection:
        return [row[0] for row in connection.execute("SELECT id FROM audit ORDER BY id")]


def rechained(owner: psycopg.Connection) -> None:
    """The owner covering their tracks: triggers off, every hash recomputed, the head moved to the new end."""
    owner.execute("ALTER TABLE audit DISABLE TRIGGER audit_append_only")
    owner.execute("ALTER TABLE audit_head DISABLE TRIGGER audit_head_only_moves_on")
    previous = ""
    rows = owner.execute("SELECT id, entry FROM audit ORDER BY id").fetchall()
    for row_id, text in rows:
        previous = chain_hash(previous, text)
        owner.execute("UPDATE audit SET hash = %s WHERE id = %s", (previous, row_id))
    owner.execute("UPDATE audit_head SET last_id = %s, hash = %s, entries = %s", (rows[-1][0], previous, len(rows)))
    owner.execute("ALTER TABLE audit_head ENABLE TRIGGER audit_head_only_moves_on")
    owner.execute("ALTER TABLE audit ENABLE TRIGGER audit_append_only")


def test_two_operators_entries_verify_and_say_who_wrote_them(two_operators, team_database):
    ana, bo = two_operators
    four_entries(ana, bo)
    intact = verify(as_login(team_database, "bo"))
    assert intact.exit_code == 0 and "4 entries, chain and signatures intact" in intact.output
    assert [entry.who for entry in TeamAuditLog(bo).entries()] == ["bo", "ana", "bo", "ana"]  # type: ignore[attr-defined]


def test_an_operator_may_not_update_delete_truncate_alter_or_touch_a_trigger(two_operators):
    ana, _ = two_operators
    four_entries(*two_operators)
    TeamWatchList(ana, "sandbox").add("prod", "order", "REQ-1")
    TeamNotes(ana, "sandbox").add("prod", "REQ-1", "called")
    refused = [
        "UPDATE audit SET entry = entry",
        "DELETE FROM audit",
        "TRUNCATE audit",
        "INSERT INTO audit (profile, environment, entry, hash) VALUES ('p', 'sandbox', '{}', '')",
        "ALTER TABLE audit DISABLE TRIGGER audit_append_only",
        "DROP TRIGGER audit_append_only ON audit",
        "ALTER TABLE audit_head DISABLE TRIGGER ALL",
        "UPDATE audit_head SET entries = 0",
        "INSERT INTO operator_keys (role, public_key) VALUES ('ana', 'AAAA')",
        "DELETE FROM operator_keys",
        "UPDATE watch_items SET pinned_by = 'bo'",
        "DELETE FROM watch_items",
        "UPDATE notes SET author = 'bo'",
        "DELETE FROM notes",
        "TRUNCATE notes",
        "UPDATE inbox SET outcome = 'x'",
        "ALTER TABLE notes ADD COLUMN x int",
        "CREATE TABLE mine (x int)",
        "CREATE FUNCTION giftdesk_now() RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$",
    ]
    with ana.connection() as connection:
        for statement in refused:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                connection.execute(statement)
        assert connection.execute("SELECT count(*) FROM audit").fetchone()[0] == 4  # and reading is allowed
        # A second key is not its own to register: only whoever runs the database adds one.
        assert connection.execute("SELECT giftdesk_register_key('AAAA')").fetchone()[0] is False


def test_an_operator_cannot_forge_an_entry_as_another_or_slip_in_an_unsigned_one(two_operators, team_database):
    ana, bo = two_operators
    four_entries(ana, bo)
    as_bo = entry_json(
        new_entry(profile="prod", environment="production", action="redeem", subject="S", outcome="completed", who="bo")
    )
    with pytest.raises(TeamDatabaseError, match="who"):  # ana writing bo's name: the database stamps her login
        TeamAuditLog(ana).append("prod", "production", as_bo)

    # ana, through the append function, with a signature that is not hers (her own entry, but not signed by her key).
    as_ana = as_bo.replace('"who": "bo"', '"who": "ana"')
    with ana.connection() as connection, connection.transaction():
        head = connection.execute("SELECT hash FROM audit_head").fetchone()[0]
        forged = connection.execute(
            "SELECT giftdesk_audit_append('prod', 'production', %s, %s, %s)",
            (as_ana, chain_hash(head, as_ana), "bm90IGEgc2lnbmF0dXJl"),
        ).fetchone()[0]
    result = verify(as_login(team_database, "bo"))
    assert result.exit_code == 1
    assert f"entry {forged}: its signature is not ana's" in result.output


@pytest.mark.parametrize("attack", ["rewritten", "removed", "re-ordered", "forged", "unsigned"])
def test_the_owner_rewriting_history_with_the_triggers_off_is_named(attack, two_operators, team_url, team_database):
    ana, bo = two_operators
    ids = four_entries(ana, bo)
    with psycopg.connect(team_url, autocommit=True) as owner:
        if attack == "rewritten":  # an old outcome changed, every later hash recomputed, the head moved
            owner.execute("ALTER TABLE audit DISABLE TRIGGER audit_append_only")
            owner.execute(
                "UPDATE audit SET entry = replace(entry, '\"placed\"', '\"refused\"') WHERE id = %s", (ids[1],)
            )
            named = ids[1]
        elif attack == "removed":
            owner.execute("ALTER TABLE audit DISABLE TRIGGER audit_append_only")
            owner.execute("DELETE FROM audit WHERE id = %s", (ids[1],))
            named = ids[2]
        elif attack == "re-ordered":  # bo's entry and ana's after it swap places, signatures and all
            owner.execute("ALTER TABLE audit DISABLE TRIGGER audit_append_only")
            owner.execute(
                "UPDATE audit SET (entry, operator, signature) = (other.entry, other.operator, other.signature)"
                " FROM (SELECT id, entry, operator, signature FROM audit) other"
                " WHERE (audit.id, other.id) IN ((%s, %s), (%s, %s))",
                (ids[1], ids[2], ids[2], ids[1]),
            )
            named = ids[1]
        else:  # an entry claiming to be ana's redeem, completed: signed with the owner's own key, or not at all
            text = entry_json(
                new_entry(
                    profile="prod",
                    environment="production",
                    action="redeem",
                    subject="S",
                    outcome="completed",
                    who="ana",
                )
            )
            signature = "bm90IGEgc2lnbmF0dXJl" if attack == "forged" else None
            named = owner.execute(
                "INSERT INTO audit (profile, environment, entry, hash, operator, written_at, signature)"
                " VALUES ('prod', 'production', %s, '', 'ana', now(), %s) RETURNING id",
                (text, signature),
            ).fetchone()[0]
        rechained(owner)
    result = verify(as_login(team_database, "ana"))
    assert result.exit_code == 1, result.output
    said = result.output
    assert f"entry {named}:" in said
    assert ("is not signed" if attack == "unsigned" else "its signature is not") in said


def test_a_malformed_row_is_skipped_and_named_and_hides_nothing_else(two_operators, team_database):
    ana, bo = two_operators
    four_entries(ana, bo)
    # A teammate appends, through the real path and signed, something that is not an audit entry.
    bad = TeamAuditLog(ana).append("prod", "production", json.dumps({"who": "ana", "time": 5}))
    TeamAuditLog(bo).record(profile="prod", environment="production", action="redeem", subject="S9", outcome="ok")
    log = TeamAuditLog(bo)
    assert [entry.subject for entry in log.entries()] == ["S9", "REQ-3", "REQ-2", "REQ-1", "REQ-0"]
    assert log.unreadable == [bad]
    result = verify(as_login(team_database, "bo"))
    assert result.exit_code == 1 and f"entry {bad}: unreadable" in result.output


def test_team_check_warns_the_owners_login_and_a_login_that_is_no_operator(team_database):
    runner = CliRunner()
    owner = runner.invoke(main, ["team", "check"], env={"GIFTDESK_DATABASE_URL": team_database.url})
    assert owner.exit_code == 0 and "this login can rewrite history" in owner.output
    ana = runner.invoke(
        main, ["team", "check"], env={"GIFTDESK_DATABASE_URL": operator_database(team_database, "ana").url}
    )
    assert ana.exit_code == 0 and "warning" not in ana.output
    removed = runner.invoke(
        main, ["team", "operator", "remove", "ana"], env={"GIFTDESK_DATABASE_URL": team_database.url}
    )
    assert removed.exit_code == 0 and "ana is no longer an operator" in removed.output
    with as_login(team_database, "ana").connect() as connection, pytest.raises(psycopg.errors.InsufficientPrivilege):
        connection.execute("SELECT * FROM audit")  # it reads nothing more
    again = runner.invoke(main, ["team", "check"], env={"GIFTDESK_DATABASE_URL": as_login(team_database, "ana").url})
    assert again.exit_code == 4 and "this login is not a giftdesk operator" in again.output
    assert "giftdesk team operator add ana" in again.output
    verified = verify(as_login(team_database, "ana"))
    assert verified.exit_code == 5 and "this login is not a giftdesk operator" in verified.output


def test_operator_add_makes_the_login_registers_its_key_or_prints_the_sql(team_database, memory_keyring):
    runner = CliRunner()
    owner = {"GIFTDESK_DATABASE_URL": team_database.url}
    printed = runner.invoke(main, ["team", "operator", "add", "carol", "--print-sql"], env=owner)
    assert printed.exit_code == 0
    assert 'CREATE ROLE "carol" LOGIN' in printed.output and 'GRANT giftdesk_operators TO "carol";' in printed.output
    bad = runner.invoke(main, ["team", "operator", "add", "carol'; DROP TABLE audit; --"], env=owner)
    assert bad.exit_code == 2 and "cannot be an operator's login" in bad.output
    assert runner.invoke(main, ["team", "operator", "add", "carol", "--public-key", "short"], env=owner).exit_code == 2

    carol = {"GIFTDESK_DATABASE_URL": as_login(team_database, "carol").url}
    ana_url = operator_database(team_database, "ana").url
    refused = runner.invoke(main, ["team", "operator", "add", "mallory"], env={"GIFTDESK_DATABASE_URL": ana_url})
    assert refused.exit_code == 3 and "permission denied to create role" in refused.output  # an operator may not
    assert "CONTEXT" not in refused.output and "--print-sql" in refused.output
    added = runner.invoke(main, ["team", "operator", "add", "carol"], env=owner)
    assert added.exit_code == 0 and "carol is an operator" in added.output
    key = runner.invoke(main, ["team", "key"], env=carol)  # made on first use, in carol's keyring
    assert key.exit_code == 0
    registered = runner.invoke(
        main, ["team", "operator", "add", "carol", "--public-key", key.output.strip()], env=owner
    )
    assert registered.exit_code == 0, registered.output
    link = open_link(team_database, "carol")
    try:
        TeamAuditLog(link).record(profile="p", environment="sandbox", action="redeem", subject="S", outcome="ok")
        assert runner.invoke(main, ["audit", "verify"], env=carol).exit_code == 0
        memory_keyring.passwords.clear()  # carol's login used from another machine (or by whoever stole it)
        with pytest.raises(TeamDatabaseError, match="not registered for carol"):
            TeamAuditLog(link).record(profile="p", environment="sandbox", action="redeem", subject="S", outcome="ok")
    finally:
        link.close()


def test_a_malformed_inbox_row_hides_no_other_delivery(link, team_url):
    from tui.local.inbox import CALLBACK, Delivery
    from tui.team.inbox import TeamInbox

    inbox = TeamInbox(link, "acme", "sandbox")
    inbox.keep(Delivery.accepted_now("callback:REQ-1", CALLBACK, {"requestId": "REQ-1"}, "10.0.0.1"))
    with psycopg.connect(team_url, autocommit=True) as owner:  # only the owner can write a row by hand now
        owner.execute(
            "INSERT INTO inbox (profile, environment, event_id, kind, verdict, received_at, source, payload)"
            " VALUES ('acme', 'sandbox', 'callback:BAD', 'callback', 'accepted', 'not a time', 'x', '{')"
        )
    inbox.keep(Delivery.accepted_now("callback:REQ-2", CALLBACK, {"requestId": "REQ-2"}, "10.0.0.1"))
    assert [delivery.event_id for delivery in inbox.since()] == ["callback:REQ-1", "callback:REQ-2"]
    assert [delivery.event_id for delivery in inbox.unprocessed()] == ["callback:REQ-1", "callback:REQ-2"]


def test_the_owner_cutting_the_last_entries_off_is_named_by_the_machine_that_wrote_them(
    two_operators, team_url, team_database
):
    ana, bo = two_operators
    ids = four_entries(ana, bo)  # ana wrote ids[0] and ids[2], from this machine
    with psycopg.connect(team_url, autocommit=True) as owner:
        owner.execute("ALTER TABLE audit DISABLE TRIGGER audit_append_only")
        owner.execute("DELETE FROM audit WHERE id >= %s", (ids[2],))
        rechained(owner)  # the head moved back to ids[1]: chain, signatures and head all agree
    result = verify(as_login(team_database, "ana"))
    assert result.exit_code == 1 and f"entry {ids[2]}: appended from this machine, is not in the log" in result.output


def test_a_schema_3_database_moves_to_one_login_per_operator_its_old_entries_kept(team_url):
    from tui.team.database import MIGRATIONS, SCHEMA_VERSION, migrate

    old = TeamDatabase(team_url)  # before: every giftdesk connected as the owner, "who" as its config said
    with psycopg.connect(team_url, autocommit=True) as owner, owner.transaction():
        owner.execute("CREATE TABLE giftdesk_schema (version integer NOT NULL)")
        for migration in MIGRATIONS[:3]:
            owner.execute(migration)
        owner.execute("INSERT INTO giftdesk_schema VALUES (3)")
        previous = ""
        for n in range(2):
            text = entry_json(
                new_entry(profile="p", environment="sandbox", action="redeem", subject=f"S{n}", outcome="ok", who="x")
            )
            previous = chain_hash(previous, text)
            row = owner.execute(
                "INSERT INTO audit (profile, environment, entry, hash) VALUES ('p', 'sandbox', %s, %s) RETURNING id",
                (text, previous),
            ).fetchone()
            owner.execute("UPDATE audit_head SET last_id = %s, hash = %s, entries = entries + 1", (row[0], previous))
    assert migrate(old) == (3, SCHEMA_VERSION)
    ana = open_link(old, "ana")
    try:
        TeamAuditLog(ana).record(profile="p", environment="sandbox", action="redeem", subject="S2", outcome="ok")
        result = verify(as_login(old, "ana"))
        assert result.exit_code == 0 and "3 entries, chain and signatures intact" in result.output, result.output
        assert [entry.subject for entry in TeamAuditLog(ana).entries()] == ["S2", "S1", "S0"]
        with ana.connection() as connection, pytest.raises(psycopg.errors.InsufficientPrivilege):
            connection.execute("DELETE FROM audit")
    finally:
        ana.close()


def test_an_operators_receiver_prunes_old_refused_samples_and_nothing_else(link, team_url):
    """The receiver prunes refused samples as the operator it runs as, who may not DELETE: the database
    does it for them, and only refused samples older than a day, whatever `before` the client asks."""
    from dataclasses import replace
    from datetime import UTC, datetime, timedelta

    from tui.local.inbox import CALLBACK, Delivery
    from tui.team.inbox import TeamInbox

    inbox = TeamInbox(link, "acme", "sandbox")
    now = datetime.now(UTC)
    old_refused = replace(
        Delivery.refused_now("webhook", "bad signature", "10.0.0.9"), received_at=now - timedelta(days=8)
    )
    new_refused = Delivery.refused_now("webhook", "bad signature", "10.0.0.9")
    old_accepted = replace(
        Delivery.accepted_now("callback:REQ-OLD", CALLBACK, {"requestId": "REQ-OLD"}, "10.0.0.1"),
        received_at=now - timedelta(days=30),
    )
    inbox.keep_all([old_refused, new_refused, old_accepted])

    assert inbox.prune_refused(now + timedelta(days=1)) == 1  # a `before` in the future: still only the old one
    assert {d.event_id for d in inbox.since()} == {new_refused.event_id, "callback:REQ-OLD"}
    with pytest.raises(TeamDatabaseError, match="permission denied"), link.connection() as connection:
        connection.execute("DELETE FROM inbox")
