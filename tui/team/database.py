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
)
SCHEMA_VERSION = len(MIGRATIONS)


class TeamDatabaseError(OSError):
    """The team database cannot be used; the message says what to do and never holds the password.

    An OSError, as a local store's file that cannot be written is: whoever handles one handles both."""


class TeamUnreachable(TeamDatabaseError):
    """The database does not answer (down, wrong host, refused login)."""


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
    with _said(database), database.connect() as connection:
        version = schema_version(connection)
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
