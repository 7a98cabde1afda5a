"""The database objects behind feed/search.py: SQL functions and indexes, or an FTS5 table.

Created by migration `feed.0007_searchbench_search_index`. On SQLite the
triggers are also re-created after every `migrate` (feed/apps.py), because
SQLite drops a table's triggers when a later migration rebuilds `feed_item`.
"""

import logging

from django.db.migrations.recorder import MigrationRecorder

logger = logging.getLogger(__name__)

# Same text as `PUBLIC_STATUSES`, so the planner sees `visible()` implies the predicate.
_PUBLIC = "status IN ('published', 'featured')"
_DOCUMENT = "feed_item_search_text(title, summary, recommendation, authors)"

POSTGRES_CREATE = [
    # Inlined by the planner, so the trigram index's expression and the query's match.
    """CREATE OR REPLACE FUNCTION feed_item_search_text(
        title text, summary text, recommendation text, authors text
    ) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN lower(title || E'\\n' || summary || E'\\n' || recommendation || E'\\n' || authors)""",
    # Every 1- and 2-character gram of the document: what a word too short for
    # trigrams is looked up by. GIN keeps each key once per row, so no DISTINCT;
    # a PL/pgSQL loop over the characters is some 15 times faster than SQL's
    # generate_series and substr (about 70 µs for an item). COST 5000 (50 times
    # the default) tells the planner what calling it per row costs: without it, a
    # search for a rare word walked the stream index calling it on every item
    # (40 s at 1M items) instead of reading the GIN index (20 ms).
    """CREATE OR REPLACE FUNCTION feed_item_short_grams(document text)
    RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT COST 5000 AS $$
    DECLARE
        chars text[] := string_to_array(document, NULL);
        grams text[] := chars;
    BEGIN
        FOR i IN 1 .. coalesce(array_length(chars, 1), 0) - 1 LOOP
            grams := grams || (chars[i] || chars[i + 1]);
        END LOOP;
        RETURN grams;
    END
    $$""",
    f"""CREATE INDEX IF NOT EXISTS item_search_trgm_idx ON feed_item
    USING gin ({_DOCUMENT} gin_trgm_ops) WHERE {_PUBLIC}""",
    f"""CREATE INDEX IF NOT EXISTS item_search_grams_idx ON feed_item
    USING gin (feed_item_short_grams({_DOCUMENT})) WHERE {_PUBLIC}""",
]
POSTGRES_DROP = [
    "DROP INDEX IF EXISTS item_search_grams_idx",
    "DROP INDEX IF EXISTS item_search_trgm_idx",
    "DROP FUNCTION IF EXISTS feed_item_short_grams(text)",
    "DROP FUNCTION IF EXISTS feed_item_search_text(text, text, text, text)",
]

SQLITE_TABLE = """CREATE VIRTUAL TABLE IF NOT EXISTS feed_item_search USING fts5(
    title, summary, recommendation, authors,
    content='feed_item', content_rowid='id', tokenize='trigram')"""
# The index holds public items only, as PostgreSQL's partial indexes do: search
# only ever narrows visible items, and indexing every draft a fetch brings in
# cost ingestion about 35 µs an item (some 40 % of its INSERT). A row enters the
# index when it becomes public and leaves it, by the 'delete' command with the
# values it was indexed with, when it stops being public, changes or goes.
_COLUMNS = "title, summary, recommendation, authors"
_INDEX_NEW = (
    f"INSERT INTO feed_item_search(rowid, {_COLUMNS})"
    f" SELECT new.id, new.title, new.summary, new.recommendation, new.authors"
    f" WHERE new.{_PUBLIC};"
)
_UNINDEX_OLD = (
    f"INSERT INTO feed_item_search(feed_item_search, rowid, {_COLUMNS})"
    f" SELECT 'delete', old.id, old.title, old.summary, old.recommendation, old.authors"
    f" WHERE old.{_PUBLIC};"
)
SQLITE_TRIGGERS = {
    "feed_item_search_public_insert": f"""CREATE TRIGGER feed_item_search_public_insert
    AFTER INSERT ON feed_item WHEN new.{_PUBLIC} BEGIN
        {_INDEX_NEW}
    END""",
    "feed_item_search_public_delete": f"""CREATE TRIGGER feed_item_search_public_delete
    AFTER DELETE ON feed_item WHEN old.{_PUBLIC} BEGIN
        {_UNINDEX_OLD}
    END""",
    "feed_item_search_public_update": f"""CREATE TRIGGER feed_item_search_public_update
    AFTER UPDATE OF {_COLUMNS}, status ON feed_item
    WHEN old.{_PUBLIC} OR new.{_PUBLIC} BEGIN
        {_UNINDEX_OLD}
        {_INDEX_NEW}
    END""",
}
# The triggers of before migration 0010, which indexed every row: what a
# database migrated back before it gets again.
PUBLIC_ONLY_MIGRATION = ("feed", "0010_search_index_public_items")
SQLITE_TRIGGERS_EVERY_ROW = {
    "feed_item_search_insert": """CREATE TRIGGER feed_item_search_insert
    AFTER INSERT ON feed_item BEGIN
        INSERT INTO feed_item_search(rowid, title, summary, recommendation, authors)
        VALUES (new.id, new.title, new.summary, new.recommendation, new.authors);
    END""",
    "feed_item_search_delete": """CREATE TRIGGER feed_item_search_delete
    AFTER DELETE ON feed_item BEGIN
        INSERT INTO feed_item_search(feed_item_search, rowid, title, summary, recommendation,
            authors)
        VALUES ('delete', old.id, old.title, old.summary, old.recommendation, old.authors);
    END""",
    "feed_item_search_update": """CREATE TRIGGER feed_item_search_update
    AFTER UPDATE OF title, summary, recommendation, authors ON feed_item BEGIN
        INSERT INTO feed_item_search(feed_item_search, rowid, title, summary, recommendation,
            authors)
        VALUES ('delete', old.id, old.title, old.summary, old.recommendation, old.authors);
        INSERT INTO feed_item_search(rowid, title, summary, recommendation, authors)
        VALUES (new.id, new.title, new.summary, new.recommendation, new.authors);
    END""",
}
# 'rebuild' indexes every row of the content table, drafts included.
SQLITE_REBUILD = "INSERT INTO feed_item_search(feed_item_search) VALUES ('rebuild')"
SQLITE_FILL = [
    "INSERT INTO feed_item_search(feed_item_search) VALUES ('delete-all')",
    # Built from this module's constants only.
    f"INSERT INTO feed_item_search(rowid, {_COLUMNS}) SELECT id, {_COLUMNS}"  # noqa: S608
    f" FROM feed_item WHERE {_PUBLIC}",
]


def search_schema_create(*, connection) -> None:
    """Create the search functions and indexes (PostgreSQL) or FTS5 table (SQLite)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for statement in POSTGRES_CREATE:
                cursor.execute(statement)
        elif connection.vendor == "sqlite":
            cursor.execute(SQLITE_TABLE)
            for statement in [*SQLITE_TRIGGERS.values(), *SQLITE_FILL]:
                cursor.execute(statement)


def search_schema_repair(*, connection, public_only: bool | None = None) -> bool:
    """SQLite: re-create missing triggers and fill the index again; True if any was missing.

    The triggers are those of the public-only index once migration 0010 is
    applied (or with `public_only`), else those of before it; the other set
    is dropped.
    """
    if connection.vendor != "sqlite":
        return False
    if public_only is None:
        public_only = PUBLIC_ONLY_MIGRATION in MigrationRecorder(connection).applied_migrations()
    wanted, other = (
        (SQLITE_TRIGGERS, SQLITE_TRIGGERS_EVERY_ROW)
        if public_only
        else (SQLITE_TRIGGERS_EVERY_ROW, SQLITE_TRIGGERS)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'feed_item_search'"
        )
        if cursor.fetchone() is None:
            return False
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        present = {name for (name,) in cursor.fetchall()}
        missing = [name for name in wanted if name not in present]
        for name in other:
            if name in present:
                cursor.execute(f"DROP TRIGGER {name}")
        for name in missing:
            cursor.execute(wanted[name])
        if missing:
            # Writes made while a trigger was missing are not in the index: start again.
            fill = SQLITE_FILL if public_only else [SQLITE_REBUILD]
            for statement in fill:
                cursor.execute(statement)
            logger.info("Search index filled again; triggers re-created: %s", ", ".join(missing))
    return bool(missing)


def search_schema_drop(*, connection) -> None:
    """Remove what `search_schema_create` made."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            for statement in POSTGRES_DROP:
                cursor.execute(statement)
        elif connection.vendor == "sqlite":
            for name in [*SQLITE_TRIGGERS, *SQLITE_TRIGGERS_EVERY_ROW]:
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
            cursor.execute("DROP TABLE IF EXISTS feed_item_search")
