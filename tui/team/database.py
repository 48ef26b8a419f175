"""The team database (PostgreSQL, psycopg 3): connecting to it, its schema and the versioned migrations.

The schema's version is the row of `giftdesk_schema`; `migrate` raises it one
migration at a time, each in its own transaction, under an advisory lock so
two `giftdesk team init` never run the same migration twice. A database of a
newer giftdesk is refused, not guessed at. Every change a store makes is
announced on the `giftdesk` channel (NOTIFY) in the same transaction, so
every giftdesk listening hears of it as soon as it is committed.
No Textual.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg

from tui.api.redact import Secret, mask_text

CHANNEL = "giftdesk"  # LISTEN/NOTIFY: one channel; the payload says what changed (tui.team.live)
CONNECT_TIMEOUT_SECONDS = 3  # a database that went away is said within this, not after TCP's minutes
_MIGRATION_LOCK = 0x61667464  # pg_advisory_xact_lock key of `migrate`

MIGRATIONS: tuple[str, ...] = (
    # 1: the audit chain, the shared watch list, notes on orders, the receiver's inbox.
    """
    CREATE TABLE audit (
        id bigserial PRIMARY KEY,
        profile text NOT NULL,
        environment text NOT NULL,
        entry text NOT NULL,
        hash text NOT NULL
    );
    CREATE FUNCTION audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'the audit log is append-only';
    END $$;
    CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit
        FOR EACH STATEMENT EXECUTE FUNCTION audit_is_append_only();

    CREATE TABLE watch_items (
        id bigserial PRIMARY KEY,
        profile text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('order', 'payout')),
        reference text NOT NULL,
        label text NOT NULL,
        pinned_by text NOT NULL,
        status text,
        final boolean NOT NULL DEFAULT false,
        detail text NOT NULL DEFAULT '',
        added_at text NOT NULL,
        updated_at text NOT NULL,
        changed_at text,
        removed_at text,
        UNIQUE (profile, kind, reference)
    );

    CREATE TABLE notes (
        id bigserial PRIMARY KEY,
        profile text NOT NULL,
        request_id text NOT NULL,
        author text NOT NULL,
        written_at text NOT NULL,
        body text NOT NULL
    );
    CREATE INDEX notes_by_order ON notes (profile, request_id, id);

    CREATE TABLE inbox (
        seq bigserial PRIMARY KEY,
        profile text NOT NULL,
        event_id text NOT NULL,
        kind text NOT NULL,
        verdict text NOT NULL CHECK (verdict IN ('accepted', 'refused')),
        reason text NOT NULL DEFAULT '',
        received_at text NOT NULL,
        source text NOT NULL,
        payload text,
        outcome text,
        processed_at text,
        UNIQUE (profile, event_id)
    );
    CREATE INDEX inbox_by_time ON inbox (profile, received_at);
    """,
    # 2: the audit log's head (its last entry), moved in the transaction of every append: a chain alone does
    # not show that its last entries were removed. It only moves forward, one entry at a time.
    """
    CREATE TABLE audit_head (
        only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
        last_id bigint NOT NULL,
        hash text NOT NULL,
        entries bigint NOT NULL
    );
    INSERT INTO audit_head (last_id, hash, entries)
        SELECT COALESCE(max(id), 0), COALESCE((SELECT hash FROM audit ORDER BY id DESC LIMIT 1), ''), count(*) FROM audit;
    CREATE FUNCTION audit_head_only_moves_on() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'UPDATE' OR NEW.last_id <= OLD.last_id OR NEW.entries <> OLD.entries + 1 THEN
            RAISE EXCEPTION 'the audit log''s head only moves on, one entry at a time';
        END IF;
        RETURN NEW;
    END $$;
    CREATE TRIGGER audit_head_only_moves_on BEFORE UPDATE OR DELETE ON audit_head
        FOR EACH ROW EXECUTE FUNCTION audit_head_only_moves_on();
    CREATE TRIGGER audit_head_kept BEFORE TRUNCATE ON audit_head
        FOR EACH STATEMENT EXECUTE FUNCTION audit_is_append_only();
    """,
    # 3: the shared lists per profile and environment (a sandbox and a production profile of one name are two
    # lists); a payout's weblink token sealed with its pinner's key (tui.local.sealed), its digest the reference.
    # Rows of schemas 1-2 (team mode before its release) have no environment: '' is none, and no giftdesk shows them.
    """
    ALTER TABLE watch_items ADD COLUMN environment text NOT NULL DEFAULT '';
    ALTER TABLE watch_items ALTER COLUMN environment DROP DEFAULT;
    ALTER TABLE watch_items DROP CONSTRAINT watch_items_profile_kind_reference_key;
    ALTER TABLE watch_items ADD UNIQUE (profile, environment, kind, reference);
    ALTER TABLE watch_items ADD COLUMN sealed text;

    ALTER TABLE notes ADD COLUMN environment text NOT NULL DEFAULT '';
    ALTER TABLE notes ALTER COLUMN environment DROP DEFAULT;
    DROP INDEX notes_by_order;
    CREATE INDEX notes_by_order ON notes (profile, environment, request_id, id);

    ALTER TABLE inbox ADD COLUMN environment text NOT NULL DEFAULT '';
    ALTER TABLE inbox ALTER COLUMN environment DROP DEFAULT;
    ALTER TABLE inbox DROP CONSTRAINT inbox_profile_event_id_key;
    ALTER TABLE inbox ADD UNIQUE (profile, environment, event_id);
    DROP INDEX inbox_by_time;
    CREATE INDEX inbox_by_time ON inbox (profile, environment, received_at);
    """,
    # 4: the database trusts no client (DESIGN rule 13). Operators (members of OPERATORS_ROLE, one login each)
    # read the tables and append only through the functions below, which run as the tables' owner and stamp
    # who (session_user) and when; they cannot update, delete, truncate, alter or touch a trigger. Each audit
    # entry carries its operator's Ed25519 signature of its chain hash, checked against operator_keys by
    # `giftdesk audit verify` (tui.team.audit); entries before this migration are chained, not signed.
    """
    DO $$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'giftdesk_operators') THEN
            CREATE ROLE giftdesk_operators NOLOGIN;
        END IF;
    END $$;

    CREATE TABLE operator_keys (
        role name NOT NULL,
        public_key text NOT NULL,
        registered_at timestamptz NOT NULL DEFAULT now(),
        registered_by name NOT NULL DEFAULT session_user,
        PRIMARY KEY (role, public_key)
    );
    ALTER TABLE audit ADD COLUMN operator name, ADD COLUMN written_at timestamptz, ADD COLUMN signature text;
    ALTER TABLE audit_head ADD COLUMN signed_from bigint;
    ALTER TABLE audit_head DISABLE TRIGGER audit_head_only_moves_on;
    UPDATE audit_head SET signed_from = last_id + 1;
    ALTER TABLE audit_head ENABLE TRIGGER audit_head_only_moves_on;
    ALTER TABLE audit_head ALTER COLUMN signed_from SET NOT NULL;

    CREATE FUNCTION giftdesk_now() RETURNS text LANGUAGE sql STABLE AS $$
        SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '+00:00'
    $$;

    CREATE FUNCTION giftdesk_register_key(p_public_key text) RETURNS boolean
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN  -- an operator's first key, on its first signed write; later ones only by `giftdesk team operator add`
        IF EXISTS (SELECT FROM operator_keys WHERE role = session_user) THEN
            RETURN false;
        END IF;
        INSERT INTO operator_keys (role, public_key) VALUES (session_user, p_public_key);
        RETURN true;
    END $$;

    CREATE FUNCTION giftdesk_audit_append(
        p_profile text, p_environment text, p_entry text, p_hash text, p_signature text
    ) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    DECLARE
        head_hash text;
        claimed text;
        new_id bigint;
    BEGIN
        PERFORM pg_advisory_xact_lock(1635083380);  -- tui.team.audit's _APPEND_LOCK: one chain
        SELECT hash INTO head_hash FROM audit_head;
        IF encode(sha256(convert_to(head_hash || E'\n' || p_entry, 'UTF8')), 'hex') <> p_hash THEN
            RAISE EXCEPTION 'the entry''s hash does not follow the audit log''s head';
        END IF;
        BEGIN
            claimed := p_entry::jsonb ->> 'who';
        EXCEPTION WHEN others THEN
            claimed := NULL;
        END;
        IF claimed IS DISTINCT FROM session_user::text THEN
            RAISE EXCEPTION 'an audit entry''s "who" is its writer''s login (%), not %', session_user, claimed;
        END IF;
        INSERT INTO audit (profile, environment, entry, hash, operator, written_at, signature)
            VALUES (p_profile, p_environment, p_entry, p_hash, session_user, now(), p_signature)
            RETURNING id INTO new_id;
        UPDATE audit_head SET last_id = new_id, hash = p_hash, entries = entries + 1;
        RETURN new_id;
    END $$;

    CREATE FUNCTION giftdesk_watch_pin(
        p_profile text, p_environment text, p_kind text, p_reference text, p_label text, p_sealed text
    ) RETURNS SETOF watch_items LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
        INSERT INTO watch_items (profile, environment, kind, reference, label, sealed, pinned_by, added_at, updated_at)
            VALUES (p_profile, p_environment, p_kind, p_reference, p_label, p_sealed, session_user,
                    giftdesk_now(), giftdesk_now())
        ON CONFLICT (profile, environment, kind, reference) DO UPDATE SET removed_at = NULL,
            sealed = CASE WHEN watch_items.final THEN NULL ELSE COALESCE(excluded.sealed, watch_items.sealed) END,
            pinned_by = CASE WHEN watch_items.removed_at IS NULL THEN watch_items.pinned_by ELSE excluded.pinned_by END,
            added_at = CASE WHEN watch_items.removed_at IS NULL THEN watch_items.added_at ELSE excluded.added_at END
        RETURNING *
    $$;

    CREATE FUNCTION giftdesk_watch_record(p_id bigint, p_status text, p_final boolean, p_detail text)
    RETURNS SETOF watch_items LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
        UPDATE watch_items SET
            changed_at = CASE WHEN status IS NOT DISTINCT FROM p_status AND final = p_final
                         THEN changed_at ELSE giftdesk_now() END,
            status = p_status, final = p_final, detail = p_detail, updated_at = giftdesk_now(),
            sealed = CASE WHEN p_final THEN NULL ELSE sealed END
        WHERE id = p_id AND removed_at IS NULL AND NOT final
        RETURNING *
    $$;

    CREATE FUNCTION giftdesk_watch_remove(p_id bigint) RETURNS SETOF watch_items
    LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
        UPDATE watch_items SET removed_at = giftdesk_now(), sealed = NULL WHERE id = p_id AND removed_at IS NULL
        RETURNING *
    $$;

    CREATE FUNCTION giftdesk_note_add(p_profile text, p_environment text, p_request_id text, p_body text)
    RETURNS SETOF notes LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
        INSERT INTO notes (profile, environment, request_id, author, written_at, body)
            VALUES (p_profile, p_environment, p_request_id, session_user, giftdesk_now(), p_body)
        RETURNING *
    $$;

    CREATE FUNCTION giftdesk_inbox_keep(
        p_profile text, p_environment text, p_event_id text, p_kind text, p_verdict text, p_reason text,
        p_received_at text, p_source text, p_payload text, p_outcome text, p_processed_at text
    ) RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    BEGIN
        INSERT INTO inbox (profile, environment, event_id, kind, verdict, reason, received_at, source, payload,
                           outcome, processed_at)
            VALUES (p_profile, p_environment, p_event_id, p_kind, p_verdict, p_reason, p_received_at, p_source,
                    p_payload, p_outcome, p_processed_at)
            ON CONFLICT (profile, environment, event_id) DO NOTHING;
        RETURN FOUND;
    END $$;

    CREATE FUNCTION giftdesk_inbox_mark(
        p_profile text, p_environment text, p_event_id text, p_outcome text, p_processed_at text
    ) RETURNS void LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp AS $$
        UPDATE inbox SET outcome = p_outcome, processed_at = p_processed_at
        WHERE profile = p_profile AND environment = p_environment AND event_id = p_event_id
    $$;

    REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC;
    REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC;
    REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
    REVOKE CREATE ON SCHEMA public FROM PUBLIC;
    GRANT USAGE ON SCHEMA public TO giftdesk_operators;
    GRANT SELECT ON giftdesk_schema, audit, audit_head, operator_keys, watch_items, notes, inbox TO giftdesk_operators;
    GRANT EXECUTE ON FUNCTION giftdesk_now(), giftdesk_register_key(text),
        giftdesk_audit_append(text, text, text, text, text),
        giftdesk_watch_pin(text, text, text, text, text, text), giftdesk_watch_record(bigint, text, boolean, text),
        giftdesk_watch_remove(bigint), giftdesk_note_add(text, text, text, text),
        giftdesk_inbox_keep(text, text, text, text, text, text, text, text, text, text, text),
        giftdesk_inbox_mark(text, text, text, text, text)
        TO giftdesk_operators;
    """,
    # 6: the receiver prunes refused samples as the operator it runs as, who may not DELETE (issue 36): refused
    # ones only, and none younger than a day whatever `p_before` says: a client may not erase fresh evidence.
    """
    CREATE FUNCTION giftdesk_inbox_prune_refused(p_profile text, p_environment text, p_before text)
    RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
    DECLARE
        gone bigint;
    BEGIN
        DELETE FROM inbox
        WHERE profile = p_profile AND environment = p_environment AND verdict = 'refused'
            AND received_at < LEAST(
                p_before,
                to_char((now() - interval '1 day') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '+00:00'
            );
        GET DIAGNOSTICS gone = ROW_COUNT;
        RETURN gone;
    END $$;

    REVOKE EXECUTE ON FUNCTION giftdesk_inbox_prune_refused(text, text, text) FROM PUBLIC;
    GRANT EXECUTE ON FUNCTION giftdesk_inbox_prune_refused(text, text, text) TO giftdesk_operators;
    """,
)
OPERATORS_ROLE = "giftdesk_operators"  # the group role of every operator's login (migration 4)
SCHEMA_VERSION = len(MIGRATIONS)


class TeamDatabaseError(OSError):
    """The team database cannot be used; the message says what to do and never holds the password.

    An OSError, as a local store's file that cannot be written is: whoever handles one handles both."""


class TeamUnreachable(TeamDatabaseError):
    """The database does not answer (down, wrong host, refused login)."""


class NotAnOperator(TeamDatabaseError):
    """The login works but may read nothing: it is not in the operators' group role (`giftdesk team operator add`)."""


class SchemaNotCurrent(TeamDatabaseError):
    """Reachable, but its schema is not this giftdesk's: `giftdesk team init`, or upgrade giftdesk."""


@dataclass(frozen=True)
class TeamDatabase:
    """Where the team database is and how to log in; opens connections."""

    url: str
    password: Secret | None = None

    def _options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_SECONDS, "application_name": "giftdesk"}
        if self.password is not None:
            options["password"] = self.password.get_secret_value()
        return options

    @property
    def shown(self) -> str:
        """The URL as it may be shown: any password in it masked."""
        return mask_text(_without_password(self.url))

    def connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self.url, autocommit=True, **self._options())
        except psycopg.Error as error:
            raise self.unreachable(error) from None

    async def connect_async(self) -> psycopg.AsyncConnection[Any]:
        try:
            return await psycopg.AsyncConnection.connect(self.url, autocommit=True, **self._options())
        except psycopg.Error as error:
            raise self.unreachable(error) from None

    def pool_options(self) -> dict[str, Any]:
        """psycopg_pool's `kwargs`: each connection's login and timeout."""
        return {"autocommit": True, **self._options()}

    def unreachable(self, error: BaseException) -> TeamUnreachable:
        reason = mask_text(str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__)
        if self.password is not None:
            reason = reason.replace(self.password.get_secret_value(), "****")
        return TeamUnreachable(f"team database {self.shown} unreachable: {reason}")


def _without_password(url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
    except ValueError:
        return "(a URL that does not parse)"
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:****@{host}"))


def schema_version(connection: psycopg.Connection[Any]) -> int:
    """The schema's version; 0 for a database giftdesk never set up."""
    exists = connection.execute("SELECT to_regclass('giftdesk_schema') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return 0
    row = connection.execute("SELECT version FROM giftdesk_schema").fetchone()
    return int(row[0]) if row else 0


def migrate(database: TeamDatabase) -> tuple[int, int]:
    """Brings the schema to SCHEMA_VERSION; (version before, version after)."""
    with _said(database), database.connect() as connection:
        with connection.transaction():
            connection.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            connection.execute("CREATE TABLE IF NOT EXISTS giftdesk_schema (version integer NOT NULL)")
            before = schema_version(connection)
        _refuse_newer(database, before)
        for number in range(before, SCHEMA_VERSION):
            with connection.transaction():
                connection.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                if schema_version(connection) != number:  # another init ran it meanwhile
                    continue
                connection.execute(MIGRATIONS[number])
                connection.execute("DELETE FROM giftdesk_schema")
                connection.execute("INSERT INTO giftdesk_schema (version) VALUES (%s)", (number + 1,))
        return before, SCHEMA_VERSION


def check(database: TeamDatabase) -> int:
    """The schema's version when the database is reachable and current; else the error that says why."""
    try:
        with _said(database), database.connect() as connection:
            version = schema_version(connection)
    except TeamDatabaseError as error:
        if "permission denied" not in str(error):
            raise
        login = _without_password(database.url).split("//", 1)[-1].split("@", 1)[0].split(":", 1)[0] or "NAME"
        raise NotAnOperator(
            f"team database {database.shown}: this login is not a giftdesk operator (it may read nothing): "
            f"ask whoever runs the database for `giftdesk team operator add {login}`"
        ) from None
    _refuse_newer(database, version)
    if version < SCHEMA_VERSION:
        raise SchemaNotCurrent(
            f"team database {database.shown} has schema {version}, this giftdesk needs {SCHEMA_VERSION}: "
            "run `giftdesk team init`"
        )
    return version


@contextmanager
def _said(database: TeamDatabase) -> Iterator[None]:
    """psycopg's errors as TeamDatabaseErrors that say which database and what to do."""
    try:
        yield
    except psycopg.OperationalError as error:
        raise database.unreachable(error) from None
    except psycopg.Error as error:
        raise TeamDatabaseError(f"team database {database.shown}: {mask_text(str(error).strip())}") from None


def _refuse_newer(database: TeamDatabase, version: int) -> None:
    if version > SCHEMA_VERSION:
        raise SchemaNotCurrent(
            f"team database {database.shown} has schema {version}, written by a newer giftdesk "
            f"(this one knows {SCHEMA_VERSION}): upgrade giftdesk"
        )
