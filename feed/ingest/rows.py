"""The two rows every fetch writes, as plain SQL written once: the source's state, its history row.

A worker writes the fetches that ended together in one transaction, and
`RowWrites` sends their rows together: one `executemany` for the states
(one per set of columns) and one for the history rows, where a statement
each made the worker's one thread of database work wait for each answer
in turn (docs/ingestion.md, "The seventh profile"). On PostgreSQL psycopg
sends an `executemany`'s statements in pipeline mode, without waiting.

The ORM took longer to build `Source.objects.filter(...).update(...)` and
`FetchAttempt.objects.create(...)` than the database took to run them
(docs/ingestion.md, "The fourth profile"). The statements here are built
from the models' own table and column names, once per shape, and every
value is prepared by its field's own `get_db_prep_save`, so what is stored
is what the ORM stored: aware times as the backend keeps them, durations
as microseconds on SQLite, JSON as JSON. Like `queryset.update()`, the
UPDATE leaves `Source.updated_at` (auto_now) alone.
"""

import datetime
import functools
from collections import defaultdict

from django.db import connection

from feed.models import FetchAttempt, Source

# Fields whose Python value is what the ORM sends the driver (text, integers):
# preparing them field by field was a tenth of a fetch's writing.
_PLAIN_TYPES = {
    "CharField",
    "TextField",
    "ForeignKey",
    "PositiveSmallIntegerField",
    "PositiveIntegerField",
}


def _is_plain(field) -> bool:
    return field.get_internal_type() in _PLAIN_TYPES


def _prepared(field, value, plain: frozenset):
    """The value as the ORM's update or insert would send it to the driver."""
    return value if field.attname in plain else field.get_db_prep_save(value, connection)


_SOURCE_PLAIN = frozenset(f.attname for f in Source._meta.concrete_fields if _is_plain(f))


@functools.cache
def _source_update_sql(columns: tuple[str, ...], vendor: str) -> str:
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(column)} = %s" for column in columns)
    meta = Source._meta
    lease_owner = quote(meta.get_field("lease_owner").column)
    return (
        f"UPDATE {quote(meta.db_table)} SET {assignments}"  # noqa: S608 (names from the model)
        f" WHERE {quote(meta.pk.column)} = %s AND {lease_owner} = %s"
    )


_ATTEMPT_FIELDS = [field for field in FetchAttempt._meta.concrete_fields if not field.primary_key]
_ATTEMPT_PLAIN = frozenset(field.attname for field in _ATTEMPT_FIELDS if _is_plain(field))


@functools.cache
def _attempt_insert_sql(vendor: str) -> str:
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in _ATTEMPT_FIELDS)
    placeholders = ", ".join(["%s"] * len(_ATTEMPT_FIELDS))
    return (
        f"INSERT INTO {quote(FetchAttempt._meta.db_table)} ({columns})"  # noqa: S608
        f" VALUES ({placeholders})"
    )


class RowWrites:
    """The state and history rows of fetches, gathered, then written by `write()`."""

    def __init__(self):
        self._states: defaultdict[tuple[str, ...], list[list]] = defaultdict(list)
        self._attempts: list[list] = []

    def state_release(self, *, source_id: int, owner: str, state: dict) -> None:
        """The source's fetch state, its lease given back if `owner` still holds it.

        The lease is the UPDATE's own condition: if another worker took the
        source meanwhile, no row changes, and `write()` says so.
        """
        changes = state | {"lease_owner": "", "lease_expires_at": None}
        fields = [Source._meta.get_field(name) for name in changes]
        params = [_prepared(field, changes[field.name], _SOURCE_PLAIN) for field in fields]
        self._states[tuple(field.column for field in fields)].append([*params, source_id, owner])

    def attempt_insert(
        self,
        *,
        source_id: int,
        started_at: datetime.datetime,
        duration: datetime.timedelta,
        **values,
    ) -> None:
        """A history row (the fields of FetchAttempt; those left out take defaults)."""
        values |= {"source_id": source_id, "started_at": started_at, "duration": duration}
        params = []
        for field in _ATTEMPT_FIELDS:
            value = values[field.attname] if field.attname in values else field.get_default()
            params.append(_prepared(field, value, _ATTEMPT_PLAIN))
        self._attempts.append(params)

    def write(self) -> bool:
        """Run the statements; False if a source's lease was lost (the caller rolls back).

        Each UPDATE changes its one row only while the lease is ours, so
        the rows they changed add up to the number of states exactly when
        no lease was lost.
        """
        released = expected = 0
        with connection.cursor() as cursor:
            for columns, rows in self._states.items():
                cursor.executemany(_source_update_sql(columns, connection.vendor), rows)
                released += cursor.rowcount
                expected += len(rows)
            if self._attempts:
                cursor.executemany(_attempt_insert_sql(connection.vendor), self._attempts)
        self._states.clear()
        self._attempts.clear()
        return released == expected
