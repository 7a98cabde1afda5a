"""Indexed search of items: what `?q=` on the stream, the feeds and the API runs.

A search is words separated by spaces; an item matches when each word is a
case-insensitive substring of its title, summary, "why" or authors, exactly
what a plain substring scan finds. Chinese has no spaces, so any run of
characters (even one) is a word. How each database serves it (docs/search.md):

- PostgreSQL: the four fields, lower-cased and joined by newlines, are one
  search document (`feed_item_search_text()`, an immutable SQL function).
  Words of 3 characters or more are a `LIKE '%word%'` served by a pg_trgm GIN
  index on that document; shorter words, which trigrams cannot serve, are
  looked up in a GIN index over the document's distinct 1- and 2-character
  grams (`feed_item_short_grams()`). Both indexes cover public items only.
- SQLite: an FTS5 table with the trigram tokenizer, kept in step with
  `feed_item` by triggers, answers words of 3 characters or more; shorter
  words fall back to a LIKE scan of the visible items (no index can serve it).

Words never contain white space and the fields are joined by a newline, so a
word cannot match across two fields. The functions, indexes, table and
triggers are created by migration `feed.0007_searchbench_search_index`.
"""

from django.db.models import BooleanField, F, Func, Q, TextField

# Words of a search beyond this many are ignored: each one is another condition.
SEARCH_MAX_WORDS = 8
# Trigram indexes (pg_trgm, FTS5 trigram) serve words of at least this length.
TRIGRAM_MIN_LENGTH = 3
SEARCHED_FIELDS = ("title", "summary", "recommendation", "authors")


def search_words(text: str) -> list[str]:
    """The distinct lower-cased words of a search, at most `SEARCH_MAX_WORDS`."""
    return list(dict.fromkeys(word.lower() for word in text.split()))[:SEARCH_MAX_WORDS]


class _SearchDocument(Func):
    """PostgreSQL: the item's search document, as the indexes compute it."""

    function = "feed_item_search_text"
    output_field = TextField()

    def __init__(self):
        super().__init__(*(F(name) for name in SEARCHED_FIELDS))


class _DocumentLike(Func):
    """PostgreSQL: the document contains `word` (LIKE, served by the trigram index)."""

    template = "%(expressions)s LIKE %%s"
    output_field = BooleanField()

    def __init__(self, word: str):
        self.word = word
        super().__init__(_SearchDocument())

    def as_sql(self, compiler, connection, **extra):
        sql, params = super().as_sql(compiler, connection, **extra)
        # LIKE's escape character is the backslash; the word's own %, _ and \ are literal.
        return sql, (*params, f"%{connection.ops.prep_for_like_query(self.word)}%")


class _DocumentHasGram(Func):
    """PostgreSQL: the document holds the 1- or 2-character `word` (the grams index)."""

    template = "feed_item_short_grams(%(expressions)s) @> ARRAY[%%s]::text[]"
    output_field = BooleanField()

    def __init__(self, word: str):
        self.word = word
        super().__init__(_SearchDocument())

    def as_sql(self, compiler, connection, **extra):
        sql, params = super().as_sql(compiler, connection, **extra)
        return sql, (*params, self.word)


class _FtsMatch(Func):
    """SQLite: the item's row is among the FTS5 trigram index's answers for `word`."""

    template = (
        "%(expressions)s IN (SELECT rowid FROM feed_item_search WHERE feed_item_search MATCH %%s)"
    )
    output_field = BooleanField()

    def __init__(self, word: str):
        self.word = word
        super().__init__(F("pk"))

    def as_sql(self, compiler, connection, **extra):
        sql, params = super().as_sql(compiler, connection, **extra)
        # One FTS5 phrase (a quote inside is doubled): consecutive trigrams, i.e. a substring.
        return sql, (*params, '"' + self.word.replace('"', '""') + '"')


def _scan(word: str) -> Q:
    """Any database: a case-insensitive LIKE over each field (no index serves it)."""
    condition = Q()
    for name in SEARCHED_FIELDS:
        condition |= Q(**{f"{name}__icontains": word})
    return condition


def word_condition(*, word: str, vendor: str):
    """The condition for one lower-cased word on the database `vendor`."""
    if vendor == "postgresql":
        return _DocumentLike(word) if len(word) >= TRIGRAM_MIN_LENGTH else _DocumentHasGram(word)
    if vendor == "sqlite" and len(word) >= TRIGRAM_MIN_LENGTH:
        return _FtsMatch(word)
    return _scan(word)
