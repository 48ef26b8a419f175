"""The local catalog mirror: every brand and product in SQLite, searchable offline, with a history.

One database per profile and environment under the data dir
(`<data dir>/catalog/<profile>-<environment>.sqlite3`, tui.local.database:
WAL, forward migrations, 0600). A sync runs in one transaction, so a sync
killed at any moment leaves the previous mirror whole and the next sync does
the whole job again. The syncing process fetches the pages
(tui/local/mirror_sync.py); the mirror's writer process reads and stores them
(tui/local/mirror_writer.py, with `PageStore` here):

- the first sync (no finished sync yet) walks every page of catalog v2, a few
  pages in flight at once;
- later syncs ask only for what changed (`ModifiedDate` = the newest
  modifiedDate the mirror holds), re-read whole any brand whose own
  modifiedDate moved without a product of it changing (a product was removed),
  and compare the service's brand count with the mirror's: a difference means
  brands came or went unseen, and a full walk follows in the same transaction.

Every sync records price and stock changes (`changes`): new, removed, price up
or down with the difference, out of stock, back in stock. The first sync
records none (it is where the history starts).

Search is FTS5 over product, brand and category names and descriptions,
ranked by bm25 with the names weighing most; every word typed is a prefix.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from itertools import chain
from pathlib import Path
from typing import Any

from tui.local.database import open_database
from tui.local.fileio import mirror_path
from tui.local.mirror_rows import BrandRow, CatalogRows, ProductRow, wire_time
from tui.local.search_terms import split_terms

# Money is kept as the exact text the service sent (TEXT columns), never as a float.
sqlite3.register_adapter(Decimal, str)


# Rows a multi-row INSERT takes at most: SQLite compiles every row of its VALUES, and past a few
# hundred rows a statement costs more per row (3,000 cost half as much again as 256).
ROWS_PER_STATEMENT = 256

# The search row of each brand: its name, its products' names, its categories, its texts.
SEARCH_ROWS = """
    INSERT INTO search (rowid, brand, products, categories, texts)
    SELECT b.rowid, b.name,
           (SELECT group_concat(p.name, ' ') FROM products p WHERE p.brand_id = b.id),
           (SELECT group_concat(c.name, ' ') FROM brand_categories bc JOIN categories c ON c.id = bc.category_id
            WHERE bc.brand_id = b.id),
           coalesce(b.description, '') || ' ' ||
           coalesce((SELECT group_concat(c.description, ' ') FROM brand_categories bc
                     JOIN categories c ON c.id = bc.category_id WHERE bc.brand_id = b.id), '')
    FROM brands b"""

# Schema history: each entry takes the schema one version forward (tui.local.database).
MIGRATIONS: tuple[str, ...] = (
    # 1: the catalog as served, and the syncs that filled it.
    """
    CREATE TABLE brands (
        id TEXT PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, currency TEXT NOT NULL,
        description TEXT, disclaimer TEXT, redemption TEXT, terms TEXT, logo_url TEXT, modified TEXT
    );
    CREATE TABLE products (
        id INTEGER PRIMARY KEY, brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
        name TEXT NOT NULL, min_face TEXT NOT NULL, max_face TEXT NOT NULL, count INTEGER,
        price_min TEXT NOT NULL, price_max TEXT NOT NULL, price_currency TEXT NOT NULL, modified TEXT
    );
    CREATE INDEX products_brand ON products(brand_id);
    CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL, description TEXT);
    CREATE TABLE brand_categories (
        brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
        category_id INTEGER NOT NULL REFERENCES categories(id),
        PRIMARY KEY (brand_id, category_id)
    );
    CREATE TABLE syncs (
        id INTEGER PRIMARY KEY, started TEXT NOT NULL, finished TEXT NOT NULL, kind TEXT NOT NULL,
        requests INTEGER NOT NULL, brands INTEGER NOT NULL, products INTEGER NOT NULL
    );
    """,
    # 2: offline search, one row per brand (filled from what version 1 already holds).
    """
    CREATE INDEX brands_name ON brands(name COLLATE NOCASE, id);
    CREATE VIRTUAL TABLE search USING fts5(
        brand, products, categories, texts, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
    );
    INSERT INTO search (search, rank) VALUES ('rank', 'bm25(10.0, 6.0, 3.0, 1.0)');
    """
    + SEARCH_ROWS
    + ";\n",
    # 3: the history of price and stock changes.
    """
    CREATE TABLE changes (
        id INTEGER PRIMARY KEY, sync_id INTEGER NOT NULL, at TEXT NOT NULL,
        kind TEXT NOT NULL, product_id INTEGER NOT NULL, product TEXT NOT NULL, brand TEXT NOT NULL,
        country TEXT NOT NULL, currency TEXT NOT NULL,
        old_min TEXT, old_max TEXT, new_min TEXT, new_max TEXT, old_count INTEGER, new_count INTEGER
    );
    CREATE INDEX changes_at ON changes(at);
    """,
)

# Change kinds, as `catalog changes` and the Changes view name them.
NEW, REMOVED, PRICE_UP, PRICE_DOWN, OUT_OF_STOCK, BACK_IN_STOCK = (
    "new",
    "removed",
    "price up",
    "price down",
    "out of stock",
    "back in stock",
)


def now_utc() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class SyncRecord:
    id: int
    started: str
    finished: str
    kind: str  # "full" or "incremental"
    requests: int
    brands: int
    products: int

    def age(self, now: datetime | None = None) -> str:
        """How long ago it finished, in words: "just now", "5 min ago", "3 h ago", "2 days ago"."""
        from tui.local.ages import ago  # the same words as every freshness line

        return ago(((now or now_utc()) - datetime.fromisoformat(self.finished)).total_seconds())


@dataclass(frozen=True)
class SyncResult:
    record: SyncRecord
    changes: int


@dataclass(frozen=True)
class Change:
    at: str
    kind: str
    product_id: int
    product: str
    brand: str
    country: str
    currency: str
    old_min: Decimal | None
    old_max: Decimal | None
    new_min: Decimal | None
    new_max: Decimal | None
    old_count: int | None
    new_count: int | None

    @property
    def difference(self) -> Decimal | None:
        """New minus old price (the lower bound: the price of the smallest card)."""
        if self.old_min is None or self.new_min is None:
            return None
        return self.new_min - self.old_min


@dataclass(frozen=True)
class SearchFilters:
    """The v2 filters, applied to the mirror (target currency is not held: the live service has it)."""

    country: str | None = None
    currency: str | None = None
    name: str | None = None  # part of the brand name, as the service's Name
    brand_id: str | None = None
    product_id: int | None = None
    modified_since: str | None = None  # products modified after this time (ISO)


def with_terms(text: str, filters: SearchFilters) -> tuple[str, SearchFilters]:
    """The words to search for, and the filters with the text's `country:`/`currency:` terms (a filter given wins)."""
    words, terms = split_terms(text)
    return words, replace(
        filters,
        country=filters.country or terms.get("country"),
        currency=filters.currency or terms.get("currency"),
    )


@dataclass
class BrandHits:
    """One page of search results: brands (best match first) with their matching products."""

    count: int  # matching brands in all
    brands: list[dict[str, Any]] = field(default_factory=list)  # wire-shaped brand dicts


WORD = re.compile(r"\w+")


def folded(text: str | None) -> str:
    """A text as the search compares it: case and accents folded (as FTS5's unicode61)."""
    folded = (text or "").casefold()
    if not folded.isascii():
        folded = "".join(c for c in unicodedata.normalize("NFKD", folded) if not unicodedata.combining(c))
    return folded


def words_of(text: str | None) -> list[str]:
    """The words of a text as the search compares them."""
    return WORD.findall(folded(text))


def word_start(word: str) -> Callable[[str], object]:
    """Whether some word of a folded text starts with `word` (itself a word): found where no word character precedes it."""
    return re.compile(r"(?<!\w)" + re.escape(word)).search


def fts_query(words: Sequence[str]) -> str:
    """Every word a prefix, all words required; quotes keep FTS5 syntax out of what was typed."""
    return " ".join(f'"{word}"*' for word in words)


class Mirror:
    """An open mirror database. Not thread-safe: used by one thread at a time (one event loop and its sync)."""

    def __init__(self, path: Path):
        self.path = path
        self.db = open_database(path, MIGRATIONS)

    @classmethod
    def for_profile(cls, profile_name: str, environment: str) -> Mirror:
        return cls(mirror_path(profile_name, environment))

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Mirror:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- what it holds -----------------------------------------------------------------

    def last_sync(self) -> SyncRecord | None:
        row = self.db.execute("SELECT * FROM syncs ORDER BY id DESC LIMIT 1").fetchone()
        return SyncRecord(*row) if row else None

    def counts(self) -> tuple[int, int]:
        """(brands, products) held."""
        brands = self.db.execute("SELECT count(*) FROM brands").fetchone()[0]
        products = self.db.execute("SELECT count(*) FROM products").fetchone()[0]
        return brands, products

    def watermark(self) -> str | None:
        """The newest modifiedDate held: a later sync asks for what changed after it."""
        row = self.db.execute(
            "SELECT max(m) FROM (SELECT max(modified) AS m FROM products UNION ALL SELECT max(modified) FROM brands)"
        ).fetchone()
        return str(row[0]) if row[0] is not None else None

    def changes(self, since: datetime | None = None) -> list[Change]:
        """Changes recorded by syncs that finished after `since` (default: the last sync's), oldest first."""
        args: tuple[int | str, ...]
        if since is None:
            last = self.last_sync()
            sql, args = "SELECT * FROM changes WHERE sync_id = ?", (last.id if last else -1,)
        else:
            sql, args = "SELECT * FROM changes WHERE at > ?", (since.isoformat(),)
        rows = self.db.execute(
            f"SELECT at, kind, product_id, product, brand, country, currency, old_min, old_max, new_min, new_max, "
            f"old_count, new_count FROM ({sql}) ORDER BY id",
            args,
        ).fetchall()
        return [Change(*row[:7], *map(_money, row[7:11]), *row[11:]) for row in rows]

    # --- search -----------------------------------------------------------------------

    def search(
        self, text: str, filters: SearchFilters = SearchFilters(), *, offset: int = 0, limit: int = 50
    ) -> BrandHits:
        """Brands matching `text` with their matching products (every brand when empty), best match first.

        One letter matches the start of brand names (alphabetical); more is a full-text search of brand,
        product and category names and descriptions, ranked (bm25: names weigh most). `country:fr` and
        `currency:eur` in the text narrow as the filters do (tui.local.search_terms).
        """
        text, filters = with_terms(text, filters)
        words = words_of(text)
        where, args = self._filter_sql(filters)
        if not words:
            base, order = f"FROM brands b WHERE 1 {where}", "b.name COLLATE NOCASE, b.id"
        elif len(words) == 1 and len(words[0]) == 1:
            base, order = f"FROM brands b WHERE b.name LIKE ? {where}", "b.name COLLATE NOCASE, b.id"
            args = [f"{words[0]}%", *args]
        elif where:
            base, order = (
                f"FROM search JOIN brands b ON b.rowid = search.rowid WHERE search MATCH ? {where}",
                "rank, b.rowid",
            )
            args = [fts_query(words), *args]
        else:  # the index alone: no join to count or rank
            base, order = "FROM search b WHERE search MATCH ?", "rank, b.rowid"
            args = [fts_query(words)]
        count = self.db.execute(f"SELECT count(*) {base}", args).fetchone()[0]
        rowids = [
            row[0]
            for row in self.db.execute(
                f"SELECT b.rowid {base} ORDER BY {order} LIMIT ? OFFSET ?", [*args, limit, offset]
            )
        ]
        brands = self._brands_wire(rowids, filters)
        starts = [word_start(word) for word in words]
        for brand in brands.values():
            # The products shown: all when the brand's own texts hold every word, else those whose names hold the rest.
            own = folded(
                " ".join(
                    filter(
                        None,
                        (
                            brand["name"],
                            brand["description"],
                            *(f"{c['name']} {c['description'] or ''}" for c in brand["categories"]),
                        ),
                    )
                )
            )
            rest = [start for start in starts if not start(own)]
            if rest:
                brand["products"] = [p for p in brand["products"] if all(start(folded(p["name"])) for start in rest)]
        return BrandHits(count, [brands[rowid] for rowid in rowids if rowid in brands])

    def search_products(
        self, text: str, filters: SearchFilters = SearchFilters(), limit: int = 200
    ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Matching products, best first: (brand without products, product), wire-shaped."""
        text, filters = with_terms(text, filters)
        hits = self.search(text, filters, limit=limit)
        pairs = [
            ({k: v for k, v in brand.items() if k != "products"}, product)
            for brand in hits.brands
            for product in brand["products"]
        ]
        return pairs[:limit]

    @staticmethod
    def _filter_sql(filters: SearchFilters) -> tuple[str, list[Any]]:
        """The brand side of the v2 filters; the product side keeps brands with such a product."""
        sql, args = "", list[Any]()
        for column, value in (("b.country", filters.country), ("b.currency", filters.currency)):
            if value:
                sql += f" AND {column} = ?"
                args.append(value.upper())
        if filters.brand_id is not None:
            sql += " AND b.id = ?"
            args.append(filters.brand_id)
        if filters.name:
            sql += " AND instr(lower(b.name), lower(?)) > 0"
            args.append(filters.name)
        product_sql, product_args = Mirror._product_filter_sql(filters)
        if product_sql:
            sql += f" AND b.id IN (SELECT p.brand_id FROM products p WHERE 1 {product_sql})"
            args += product_args
        return sql, args

    @staticmethod
    def _product_filter_sql(filters: SearchFilters) -> tuple[str, list[Any]]:
        sql, args = "", list[Any]()
        if filters.product_id is not None:
            sql += " AND p.id = ?"
            args.append(filters.product_id)
        if filters.modified_since:
            sql += " AND p.modified > ?"
            args.append(wire_time(filters.modified_since))
        return sql, args

    def _brands_wire(self, rowids: Sequence[int], filters: SearchFilters) -> dict[int, dict[str, Any]]:
        """Brands (by rowid) in the v2 item shape (wire names), with their products that pass the product filters."""
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        brands: dict[int, dict[str, Any]] = {}
        by_id: dict[str, dict[str, Any]] = {}
        for rowid, *row in self.db.execute(f"SELECT rowid, * FROM brands WHERE rowid IN ({marks})", rowids):
            brands[rowid] = by_id[row[0]] = {
                "internalId": row[0],
                "name": row[1],
                "countryCode": row[2],
                "currencyCode": row[3],
                "description": row[4],
                "disclaimer": row[5],
                "redemptionInstructions": row[6],
                "terms": row[7],
                "logoUrl": row[8],
                "modifiedDate": row[9],
                "products": [],
                "categories": [],
            }
        brand_ids = list(by_id)
        marks = ",".join("?" * len(brand_ids))
        product_sql, product_args = self._product_filter_sql(filters)
        for row in self.db.execute(
            f"SELECT * FROM products p WHERE p.brand_id IN ({marks}) {product_sql} ORDER BY p.id",
            [*brand_ids, *product_args],
        ):
            by_id[row[1]]["products"].append(
                {
                    "id": row[0],
                    "name": row[2],
                    "minFaceValue": _money(row[3]),
                    "maxFaceValue": _money(row[4]),
                    "count": row[5],
                    "price": {"min": _money(row[6]), "max": _money(row[7]), "currencyCode": row[8]},
                    "modifiedDate": row[9],
                }
            )
        for row in self.db.execute(
            f"SELECT bc.brand_id, c.id, c.name, c.description FROM brand_categories bc "
            f"JOIN categories c ON c.id = bc.category_id WHERE bc.brand_id IN ({marks}) ORDER BY c.id",
            brand_ids,
        ):
            by_id[row[0]]["categories"].append({"id": row[1], "name": row[2], "description": row[3]})
        return brands


def has_mirror(profile_name: str, environment: str) -> bool:
    """A mirror with at least one finished sync exists (opening none creates none)."""
    path = mirror_path(profile_name, environment)
    if not path.exists():
        return False
    with Mirror(path) as mirror:
        return mirror.last_sync() is not None


# --- sync -----------------------------------------------------------------------------------


def store_rows(mirror: Mirror, at: str) -> PageStore:
    """What stores this sync's pages (at `at`), inside the sync's transaction; changes are recorded
    from the second sync on."""
    sync_id = mirror.db.execute("SELECT coalesce(max(id), 0) + 1 FROM syncs").fetchone()[0]
    return PageStore(mirror.db, sync_id, at, record_changes=mirror.last_sync() is not None)


class PageStore:
    """Writes pages into the mirror inside the sync's transaction, noting what changed."""

    def __init__(self, db: sqlite3.Connection, sync_id: int, at: str, *, record_changes: bool):
        self.db, self.sync_id, self.at, self.record_changes = db, sync_id, at, record_changes
        self.empty = db.execute("SELECT NOT EXISTS (SELECT 1 FROM brands)").fetchone()[0] == 1
        self.seen_brands: set[str] = set()
        self.changes = 0

    def page(self, rows: CatalogRows, *, whole: bool) -> None:
        """Store brands and the products they came with; `whole`: those are all the products they have."""
        if not rows.brands:
            return
        db = self.db
        ids = rows.brand_ids
        marks = ",".join("?" * len(ids))
        new = self.empty and self.seen_brands.isdisjoint(ids)  # none of them stored yet (a brand may come twice)
        self.seen_brands.update(ids)
        old: dict[int, tuple[Any, ...]] = (
            {}
            if new
            else {
                row[0]: _exact(row)
                for row in db.execute(
                    f"SELECT id, price_min, price_max, count, brand_id FROM products WHERE brand_id IN ({marks})", ids
                )
            }
        )
        self.insert(
            "INSERT INTO brands",
            rows.brands,
            "ON CONFLICT(id) DO UPDATE SET name=excluded.name, country=excluded.country, "
            "currency=excluded.currency, description=excluded.description, disclaimer=excluded.disclaimer, "
            "redemption=excluded.redemption, terms=excluded.terms, logo_url=excluded.logo_url, "
            "modified=excluded.modified",
        )
        self.insert(
            "INSERT INTO categories",
            list(rows.categories.values()),
            "ON CONFLICT(id) DO UPDATE SET name=excluded.name, description=excluded.description",
        )
        if not new:
            db.execute(f"DELETE FROM brand_categories WHERE brand_id IN ({marks})", ids)
            db.execute(f"DELETE FROM search WHERE rowid IN (SELECT rowid FROM brands WHERE id IN ({marks}))", ids)
        self.insert("INSERT OR IGNORE INTO brand_categories", rows.brand_categories)
        self.insert("INSERT OR REPLACE INTO products", rows.products)
        if self.record_changes:
            brands = {brand[0]: brand for brand in rows.brands}
            for product in rows.products:
                self._compare(brands[product[1]], product, old.get(product[0]))
        if whole:
            self.remove_products(set(old) - {product[0] for product in rows.products})
        db.execute(f"{SEARCH_ROWS} WHERE b.id IN ({marks})", ids)

    def insert(self, statement: str, rows: Sequence[tuple[Any, ...]], conflict: str = "") -> None:
        """`statement VALUES (..), (..) conflict`: the rows in a few statements rather than one each.

        SQLite lets go of the interpreter's lock for every statement it runs, and while another
        thread keeps busy (the pages being fetched and decoded) taking it back can wait a whole
        switch interval (5 ms): executemany paid that per row.
        """
        if not rows:
            return
        width = len(rows[0])
        per_statement = max(1, min(ROWS_PER_STATEMENT, self.db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // width))
        row_marks = f"({','.join('?' * width)})"
        for start in range(0, len(rows), per_statement):
            chunk = rows[start : start + per_statement]
            self.db.execute(
                f"{statement} VALUES {','.join([row_marks] * len(chunk))} {conflict}", list(chain.from_iterable(chunk))
            )

    def _compare(self, brand: BrandRow, product: ProductRow, old: tuple[Any, ...] | None) -> None:
        product_id, _, name, _, _, new_count, new_min, new_max, currency, _ = product
        new = (Decimal(new_min), Decimal(new_max), new_count)
        if old is None:
            self._record(NEW, product_id, name, brand[1], brand[2], currency, None, new)
            return
        before = old[1:4]
        if before[:2] != new[:2]:
            kind = PRICE_UP if new[:2] > before[:2] else PRICE_DOWN
            self._record(kind, product_id, name, brand[1], brand[2], currency, before, new)
        if before[2] != 0 and new_count == 0:
            self._record(OUT_OF_STOCK, product_id, name, brand[1], brand[2], currency, before, new)
        elif before[2] == 0 and new_count != 0:
            self._record(BACK_IN_STOCK, product_id, name, brand[1], brand[2], currency, before, new)

    def _record(
        self,
        kind: str,
        product_id: int,
        name: str,
        brand: str,
        country: str,
        currency: str,
        old: Sequence[Any] | None,
        new: Sequence[Any] | None,
    ) -> None:
        self.changes += 1
        self.db.execute(
            "INSERT INTO changes (sync_id, at, kind, product_id, product, brand, country, currency, old_min, "
            "old_max, old_count, new_min, new_max, new_count) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                self.sync_id,
                self.at,
                kind,
                product_id,
                name,
                brand,
                country,
                currency,
                *(old or (None, None, None)),
                *(new or (None, None, None)),
            ),
        )

    def remove_products(self, product_ids: Iterable[int]) -> None:
        for product_id in product_ids:
            row = self.db.execute(
                "SELECT p.name, p.price_min, p.price_max, p.count, p.price_currency, b.name, b.country "
                "FROM products p JOIN brands b ON b.id = p.brand_id WHERE p.id = ?",
                (product_id,),
            ).fetchone()
            if row is None:
                continue
            if self.record_changes:
                self._record(REMOVED, product_id, row[0], row[5], row[6], row[4], _exact(row)[1:4], None)
            self.db.execute("DELETE FROM products WHERE id = ?", (product_id,))

    def remove_unseen(self) -> None:
        """After a full walk: brands the service no longer lists are gone, with their products."""
        for (brand_id,) in self.db.execute("SELECT id FROM brands").fetchall():
            if brand_id not in self.seen_brands:
                self.remove_products(
                    row[0]
                    for row in self.db.execute("SELECT id FROM products WHERE brand_id = ?", (brand_id,)).fetchall()
                )
                self.db.execute("DELETE FROM search WHERE rowid = (SELECT rowid FROM brands WHERE id = ?)", (brand_id,))
                self.db.execute("DELETE FROM brands WHERE id = ?", (brand_id,))

    def record(self, kind: str, requests: int, finished: str, brands: int, products: int) -> None:
        """The sync itself, as `Mirror.last_sync` reads it once committed."""
        self.db.execute(
            "INSERT INTO syncs VALUES (?,?,?,?,?,?,?)",
            (self.sync_id, self.at, finished, kind, requests, brands, products),
        )


def _money(text: str | None) -> Decimal | None:
    return None if text is None else Decimal(text)


def _exact(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A (name or id, price_min, price_max, ...) row with its prices as Decimal."""
    return (row[0], _money(row[1]), _money(row[2]), *row[3:])
