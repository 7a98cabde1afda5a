"""Plain SQL built from the models' own names, and its rows read as the ORM reads them.

Where building a statement through the ORM cost more than the database took
to run it, on a path every page or fetch takes, the statement is written
once from the models' table and column names (quoted for the backend) and
its values converted by the converters the ORM itself would apply
(SQLite's text times, JSON): what the caller gets is what the ORM gave.
"""

import functools

import psycopg
from django.conf import settings
from django.db import connection


def table(model) -> str:
    """A model's table, quoted."""
    return connection.ops.quote_name(model._meta.db_table)


def column(model, field: str, alias: str = "") -> str:
    """`table.column` of a model's field, quoted; on `alias` if given, else on the model's table."""
    return (
        f"{alias or table(model)}.{connection.ops.quote_name(model._meta.get_field(field).column)}"
    )


@functools.cache
def converters(model, names: tuple[str, ...], vendor: str) -> tuple:
    """For each field named, its column and the functions the ORM converts its values with."""
    found = []
    for name in names:
        field = model._meta.get_field(name)
        col = field.get_col(model._meta.db_table)
        found.append(
            (col, connection.ops.get_db_converters(col) + field.get_db_converters(connection))
        )
    return tuple(found)


def values_converted(model, names: tuple[str, ...], values: list) -> list:
    """`values` of the fields `names`, in that order, converted in place as the ORM would."""
    for position, (col, functions) in enumerate(converters(model, names, connection.vendor)):
        for convert in functions:
            values[position] = convert(values[position], col, connection)
    return values


def in_values(values) -> tuple[str, list]:
    """`IN (…)` of `values`: the SQL to put after a column, and its parameters.

    On PostgreSQL `= ANY(%s)` with one array. psycopg keeps the parsed form
    of a statement with at most 50 parameters; a page of 50 cards asks with
    51 ids, so its tags and its stories' members were parsed again in Python
    on every cold page, about 90 µs each.
    """
    values = list(values)
    if connection.vendor == "postgresql":
        return "= ANY(%s)", [values]
    return f"IN ({', '.join(['%s'] * len(values))})", values


class _PreparingCursor(psycopg.Cursor):
    """psycopg's server-binding cursor, preparing every statement it runs.

    Django's cursor wrapper calls `execute(sql, params)` and passes no
    `prepare`, so the cursor asks for it itself.
    """

    def execute(self, query, params=None, *, prepare=None, binary=None):
        return super().execute(query, params, prepare=True, binary=binary)


def prepared_cursor(db=None):
    """A cursor for our own plain SQL whose statements PostgreSQL plans once a connection.

    Planning is about half of what PostgreSQL spends on a cold page's small
    statements (a card's tags, a story's members: 0.1-0.5 ms each to plan,
    less to run; docs/benchmarks.md). On PostgreSQL this cursor binds its
    parameters on the server and prepares each statement, which psycopg keeps
    for the connection's life (the pool keeps connections), so later requests
    only execute. It is wrapped like `connection.cursor()`, so execute
    wrappers (the benchmark's query count) see its statements.

    Only for statements whose plan does not depend on their values: after five
    runs PostgreSQL may switch a prepared statement to one generic plan, which
    for a filter on the most common tags took 1.2 s (the ORM's statements
    stay unprepared). Elsewhere, and with
    `DATABASE_PREPARED_STATEMENTS=0` (a transaction-pooling PgBouncer older
    than 1.21), this is `db.cursor()`; `db` is the default connection unless given.
    """
    db = db or connection
    # While Django logs queries (DEBUG, the tests' query counts, bench/explain.py)
    # they run unprepared: its log shows a prepared one without its values.
    if db.vendor != "postgresql" or not settings.AITOP_PREPARED_STATEMENTS or db.queries_logged:
        return db.cursor()
    db.ensure_connection()
    db.validate_thread_sharing()
    return db.make_cursor(_PreparingCursor(db.connection))
