"""A fetch's two item statements, written once: what its entries may be, and the new ones' INSERT.

- The look-up reads the items an entry may be (by guid in its source, by URL
  in any) and, in the same statement, the tombstones of its URLs.
- The INSERT is built straight from the entries, with what is the same for
  every row (the source, its kind and category, the defaults, the times)
  bound once. Its heat counts, in the statement itself, the other sources
  that already carry the same story (cluster key): no query of its own.
  On PostgreSQL the rows go as one JSON parameter that
  `jsonb_populate_recordset` turns into rows of the item table (one bound
  value, where VALUES had thousands for psycopg to split and quote, and 25
  arrays had a cast each); SQLite, in-process, takes a multi-row VALUES.

The ORM spent longer building these statements than the database took to
run them (docs/ingestion.md, "The fourth profile").
"""

import datetime
import functools
import json
import sqlite3

from django.db import connection
from django.utils import timezone

from feed.ingest.normalise import Entry
from feed.models import Item, Source, Tombstone
from feed.sql import in_values, values_converted

# What an item's heat gains for each other source that carries the same story.
HEAT_PER_OTHER_SOURCE = 10
# The columns of an item that the look-up reads: what the upsert compares and
# refreshes, in the model's order (which Item.from_db needs).
KNOWN_FIELDS = tuple(
    field.attname
    for field in Item._meta.concrete_fields
    if field.attname
    in {
        "id",
        "source_id",
        "guid",
        "url",
        "version",
        "edited_fields",
        "status",
        "title",
        "authors",
        "original_published_at",
        "summary",
        "body",
    }
)
# The columns of a new item that come from its entry; every other is the same for all rows.
_ENTRY_FIELDS = (
    "title",
    "url",
    "guid",
    "authors",
    "original_published_at",
    "summary",
    "body",
    "cluster_key",
)


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


@functools.cache
def _known_sql(vendor: str, guids: int, urls: int) -> str:
    """The look-up for so many guids and URLs (PostgreSQL: one array each, whatever the count)."""
    meta = Item._meta
    columns = ", ".join(_q(meta.get_field(name).column) for name in KNOWN_FIELDS)
    if vendor == "postgresql":
        in_guids, in_urls = "= ANY(%s)", "= ANY(%s)"
    else:
        in_guids = f"IN ({', '.join(['%s'] * guids)})"
        in_urls = f"IN ({', '.join(['%s'] * urls)})"
    url = _q("url")
    # NOT (guid = '') is the unique guid index's own condition: SQLite uses a
    # partial index only when the query states its WHERE clause.
    where = f"{url} {in_urls}"
    if guids:
        where = (
            f"(NOT ({_q('guid')} = '') AND {_q('source_id')} = %s AND {_q('guid')} {in_guids})"
            f" OR {where}"
        )
    # A tombstone is a row of NULLs but its URL, told apart by the first column.
    nulls = ", ".join(url if name == "url" else "NULL" for name in KNOWN_FIELDS)
    return (
        f"SELECT 1, {columns} FROM {_q(meta.db_table)} WHERE {where}"  # noqa: S608 (names from the models)
        f" UNION ALL SELECT 0, {nulls} FROM {_q(Tombstone._meta.db_table)} WHERE {url} {in_urls}"
    )


def known_statement(*, source_id: int, guids: list[str], urls: list[str]) -> tuple[str, list]:
    """The look-up's SQL and parameters (tests read its plan)."""
    sql = _known_sql(connection.vendor, len(guids), len(urls))
    if connection.vendor == "postgresql":
        params = [source_id, guids, urls, urls] if guids else [urls, urls]
    else:
        params = [source_id, *guids, *urls, *urls] if guids else [*urls, *urls]
    return sql, params


def items_known(
    *, source: Source, guids: list[str], urls: list[str]
) -> tuple[list[Item], set[str]]:
    """The items these entries may be (only KNOWN_FIELDS loaded) and which URLs are tombstoned."""
    sql, params = known_statement(source_id=source.pk, guids=guids, urls=urls)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    url_at = KNOWN_FIELDS.index("url")
    items, tombstoned = [], set()
    for is_item, *values in rows:
        if not is_item:
            tombstoned.add(values[url_at])
            continue
        values = values_converted(Item, KNOWN_FIELDS, values)
        items.append(Item.from_db(connection.alias, KNOWN_FIELDS, values))
    return items, tombstoned


@functools.cache
def _insert_sql(vendor: str, rows: int) -> tuple[str, tuple[str, ...]]:
    """The INSERT of `rows` new items (PostgreSQL: any number), and the attnames of its constants.

    Parameters, in order: the rows (on SQLite their values, on PostgreSQL one
    JSON array); the source, whose own items the heat does not count; then, in
    column order, each constant's value and the heat's two (the source's
    weight, what each other source adds).
    """
    meta = Item._meta
    fields = [field for field in meta.concrete_fields if not field.primary_key]
    table = _q(meta.db_table)
    cluster, source_column = _q("cluster_key"), _q(meta.get_field("source").column)
    least, greatest = ("LEAST", "GREATEST") if vendor == "postgresql" else ("MIN", "MAX")
    # Other sources with the story, counted once for each distinct story of
    # the rows (h), before this statement's own rows (which are all this
    # source's): for each story, the partial cluster index's range of that key.
    # A subquery for each row counted the same range again for every row that
    # shared a key, which is quadratic when many entries of a big feed share
    # one (10,000 entries of one story: 20 s on SQLite); a join of the index
    # to the rows (IN) read the whole index on PostgreSQL. MATERIALIZED: SQLite
    # otherwise ran h again for every row it joined (23 s again, the same way).
    heat = f"{greatest}(0, {least}(100, %s + %s * COALESCE(h.sources, 0)))"
    other_sources = (
        f"h(story, sources) AS MATERIALIZED (SELECT s.story,"  # noqa: S608
        f" (SELECT COUNT(DISTINCT o.{source_column})"
        f" FROM {table} o WHERE NOT (o.{cluster} = '') AND o.{cluster} = s.story"
        f" AND o.{source_column} <> %s)"
        f" FROM (SELECT DISTINCT r.{cluster} AS story FROM r WHERE NOT (r.{cluster} = '')) s)"
    )
    selected, slots = [], []
    for field in fields:
        if field.name in _ENTRY_FIELDS:
            selected.append(f"r.{_q(field.column)}")
        elif field.name == "heat":
            selected.append(heat)
            slots.append("heat")
        else:
            selected.append("%s")
            slots.append(field.attname)
    columns = ", ".join(_q(field.column) for field in fields)
    returning = f"RETURNING {_q(meta.pk.column)}, {_q('url')}"
    if vendor == "postgresql":
        rows_sql = f"r AS (SELECT * FROM jsonb_populate_recordset(NULL::{table}, %s::jsonb))"  # noqa: S608
    else:
        names = ", ".join(_q(meta.get_field(name).column) for name in _ENTRY_FIELDS)
        row = "(" + ", ".join(["%s"] * len(_ENTRY_FIELDS)) + ")"
        rows_sql = f"r({names}) AS (VALUES {', '.join([row] * rows)})"
    # "WHERE true" keeps SQLite from reading ON CONFLICT as the join's ON.
    sql = (
        f"WITH {rows_sql}, {other_sources}"  # noqa: S608 (names from the models)
        f" INSERT INTO {table} ({columns}) SELECT {', '.join(selected)}"
        f" FROM r LEFT JOIN h ON h.story = r.{cluster}"
        f" WHERE true ON CONFLICT DO NOTHING {returning}"
    )
    return sql, tuple(slots)


@functools.cache
def sqlite_rows_per_insert() -> int:
    """How many new items one SQLite INSERT may carry within its limit of bound values."""
    limit = 999
    raw = connection.connection
    if isinstance(raw, sqlite3.Connection):
        limit = raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    constants = len(Item._meta.concrete_fields) + 3
    return max(1, (limit - constants) // len(_ENTRY_FIELDS))


def _constant(attname: str, values: dict, written_at: datetime.datetime):
    """A constant column's value as the ORM prepared it (its default, auto_now, JSON)."""
    field = Item._meta.get_field(attname.removesuffix("_id"))
    if attname in values:
        value = values[attname]
    elif getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        value = written_at
    else:
        value = field.get_default()
    return field.get_db_prep_save(value, connection)


def _entry_row(entry: Entry) -> tuple:
    return (
        entry.title,
        entry.url,
        entry.guid,
        entry.authors,
        entry.published_at,
        entry.summary,
        entry.body,
        entry.cluster_key,
    )


def items_insert_new(
    *, source: Source, entries: list[Entry], fetched_at: datetime.datetime
) -> dict[str, int]:
    """INSERT a draft for each entry, in URL order; {url: id} of those written.

    An entry whose URL (or guid in its source) another worker wrote a moment
    ago is skipped (ON CONFLICT DO NOTHING) and left out of what is returned:
    the story is in, and one conflict costs neither the other items nor a
    savepoint around every insert. In URL order: two workers inserting
    overlapping batches take the unique index's locks in the same order and
    wait, instead of deadlocking.
    """
    entries = sorted(entries, key=lambda entry: entry.url)
    values = {
        "source_id": source.pk,
        "kind": source.kind,
        "category": source.default_category,
        "status": Item.Status.DRAFT.value,
        "fetched_at": fetched_at,
    }
    # What the ORM's pre_save gave auto_now(_add) fields: the time of the write.
    written_at = timezone.now()
    postgres = connection.vendor == "postgresql"
    published = Item._meta.get_field("original_published_at")
    written: dict[str, int] = {}
    size = len(entries) if postgres else sqlite_rows_per_insert()
    for start in range(0, len(entries), size):
        chunk = entries[start : start + size]
        sql, slots = _insert_sql(connection.vendor, 0 if postgres else len(chunk))
        selected = [source.pk]
        for slot in slots:
            if slot == "heat":
                selected += [source.weight, HEAT_PER_OTHER_SOURCE]
            else:
                selected.append(_constant(slot, values, written_at))
        if postgres:
            rows = [dict(zip(_ENTRY_FIELDS, _entry_row(entry), strict=True)) for entry in chunk]
            for row in rows:
                # ISO 8601 with its offset: the same instant as the ORM's timestamptz.
                row["original_published_at"] = row["original_published_at"].isoformat()
            params = [json.dumps(rows, ensure_ascii=False), *selected]
        else:
            params = []
            for entry in chunk:
                row = list(_entry_row(entry))
                row[4] = published.get_db_prep_save(row[4], connection)
                params += row
            params += selected
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            written.update((url, pk) for pk, url in cursor.fetchall())
    return written


def items_seen(*, item_ids: list[int], fetched_at: datetime.datetime) -> None:
    """Mark known items as seen in their feed now (fetched_at), as `update()` did: one UPDATE."""
    meta = Item._meta
    column = _q(meta.get_field("fetched_at").column)
    ids, params = in_values(item_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_q(meta.db_table)} SET {column} = %s"  # noqa: S608 (names from the model)
            f" WHERE {_q(meta.pk.column)} {ids}",
            [connection.ops.adapt_datetimefield_value(fetched_at), *params],
        )
