"""The publish generation: one number that moves whenever anything a reader sees may change.

Every public ETag, Last-Modified and server-side cache key derives from it,
so knowing whether a page is current costs one cache read (a shared cache) or
one primary-key read of `feed.Generation` (a per-process cache), never an
aggregate over the items. Writers call `generation_bump()`; the bump happens
on commit, once per transaction. Scheduled items need no write: the row
remembers the next publish moment, and the first reader after it advances
the generation. See docs/caching.md.
"""

import datetime
import functools
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from feed.models import PUBLIC_STATUSES, Generation, Item
from feed.sql import column, prepared_cursor, table, values_converted

logger = logging.getLogger(__name__)

GENERATION_KEY = "aitop:generation"
# Last-Modified has whole seconds: each bump moves it at least this much.
STEP = datetime.timedelta(seconds=1)
# Backends that keep entries inside one process: another process's bump never reaches them.
_PROCESS_LOCAL = ("LocMemCache", "DummyCache")


@dataclass(frozen=True)
class Freshness:
    """The generation as readers see it: its number, since when, and the next scheduled moment."""

    value: int
    changed_at: datetime.datetime
    next_publish_at: datetime.datetime | None


def generation_in_cache() -> bool:
    """Whether the generation is read from the cache (shared by every process) or the database."""
    where = settings.AITOP_GENERATION_STORE
    if where == "auto":
        backend = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
        return backend not in _PROCESS_LOCAL
    return where == "cache"


def generation_current(*, now: datetime.datetime | None = None) -> Freshness:
    """The current generation: one cache read or one indexed query (more once a schedule passes)."""
    state = cache.get(GENERATION_KEY) if generation_in_cache() else None
    return _settled(state, now=now or timezone.now())


def generation_current_with(
    key: str, *, now: datetime.datetime | None = None
) -> tuple[Freshness, Any]:
    """The current generation and the cache entry under `key` (None if absent), read together.

    With a shared cache both come in one round trip (MGET); a warm page
    needs nothing else. Otherwise the generation is read from its row first.
    """
    if not generation_in_cache():
        return generation_current(now=now), cache.get(key)
    found = cache.get_many([GENERATION_KEY, key])
    return _settled(found.get(GENERATION_KEY), now=now or timezone.now()), found.get(key)


def generation_current_with_many(
    keys: list[str], *, now: datetime.datetime | None = None, read=None
) -> tuple[Freshness, dict]:
    """The current generation and the entries found under `keys`, read together (one MGET).

    For an answer that needs more than its page. `read(keys)` replaces
    `cache.get_many` for a caller that does more in the same round trip (the
    API counts the caller against its rates: api/cache.py).
    """
    read = read or cache.get_many
    if not generation_in_cache():
        return generation_current(now=now), read(keys)
    found = read([GENERATION_KEY, *keys])
    return _settled(found.pop(GENERATION_KEY, None), now=now or timezone.now()), found


def _settled(state: Freshness | None, *, now: datetime.datetime) -> Freshness:
    """`state` as read from the cache, loaded when absent and advanced when a schedule passed."""
    if state is None:
        state = _load(now=now)
        _remember(state)
    if state.next_publish_at is not None and state.next_publish_at <= now:
        # A scheduled item has just become visible: that is a change like any other.
        state = _write(now=now, scheduled=state)
    return state


def generation_bump(*, using: str | None = None) -> None:
    """Move the generation once the current transaction commits (once, however often called)."""
    _schedule(using)


def _schedule(using: str | None) -> None:
    connection = transaction.get_connection(using)
    if connection.in_atomic_block:
        open_savepoints = set(connection.savepoint_ids)
        for sids, func, _robust in connection.run_on_commit:
            # Already due with this commit, from this savepoint or an outer one.
            if func is _bump_now and set(sids) <= open_savepoints:
                return
    transaction.on_commit(_bump_now, using=using, robust=True)


def generation_bump_if_public(status: str) -> None:
    """`generation_bump()` when an item of this status is one readers may see."""
    if status in PUBLIC_STATUSES:
        generation_bump()


def _bump_now() -> None:
    _write(now=timezone.now())


def _next_scheduled(now: datetime.datetime) -> datetime.datetime | None:
    """The earliest publish time still ahead (the public stream index, read from its end)."""
    return (
        Item.objects.scheduled(now=now)
        .order_by("published_at", "id")
        .values_list("published_at", flat=True)
        .first()
    )


_STATE_FIELDS = ("value", "changed_at", "next_publish_at")


@functools.cache
def _row_sql(vendor: str) -> str:
    columns = ", ".join(column(Generation, name) for name in _STATE_FIELDS)
    return f"SELECT {columns} FROM {table(Generation)} WHERE {column(Generation, 'id')} = 1"  # noqa: S608


def _read() -> Freshness | None:
    """The row's state, by one primary-key SELECT written once.

    Without a shared cache every public request reads it, a cold page and a
    304 included, and the ORM took about as long to build `filter(pk=1)` as
    the rest of a 304 (docs/caching.md).
    """
    with prepared_cursor() as cursor:
        cursor.execute(_row_sql(connection.vendor))
        row = cursor.fetchone()
    if row is None:
        return None
    value, changed_at, next_publish_at = values_converted(Generation, _STATE_FIELDS, list(row))
    return Freshness(value=value, changed_at=changed_at, next_publish_at=next_publish_at)


def _load(*, now: datetime.datetime) -> Freshness:
    state = _read()
    if state is not None:
        return state
    try:
        with transaction.atomic():
            row = Generation.objects.create(
                pk=1, value=1, changed_at=now, next_publish_at=_next_scheduled(now)
            )
    except IntegrityError:
        # Another process created it first.
        row = Generation.objects.get(pk=1)
    return _state(row)


def _write(*, now: datetime.datetime, scheduled: Freshness | None = None) -> Freshness:
    """Move the generation forward and remember it; `scheduled` when a publish moment passed."""
    with transaction.atomic():
        row = Generation.objects.select_for_update().filter(pk=1).first()
        if row is None:
            return _remember(_load(now=now))
        if scheduled is not None and (
            row.value != scheduled.value or row.next_publish_at != scheduled.next_publish_at
        ):
            # Another request or process advanced it meanwhile; ours is the same change.
            state = _state(row)
            if state.next_publish_at is None or state.next_publish_at > now:
                return _remember(state)
        # The moment the page changed: a scheduled item's publish time, else now.
        moment = row.next_publish_at if scheduled is not None else now
        row.value += 1
        row.changed_at = max(moment, row.changed_at + STEP)
        row.next_publish_at = _next_scheduled(now)
        row.save()
    return _remember(_state(row))


def _state(row: Generation) -> Freshness:
    return Freshness(
        value=row.value, changed_at=row.changed_at, next_publish_at=row.next_publish_at
    )


def _remember(state: Freshness) -> Freshness:
    """Put `state` in the shared cache unless a newer one is already there."""
    if generation_in_cache():
        current = cache.get(GENERATION_KEY)
        if current is None or current.value <= state.value:
            cache.set(GENERATION_KEY, state, settings.AITOP_GENERATION_CACHE_SECONDS)
    return state


# Receivers for writes that bypass the functions which call `generation_bump()`
# themselves: the admin's plain saves, deletions, source and tag renames.


def item_saved(sender, instance: Item, raw: bool = False, **kwargs) -> None:
    """A public item saved directly (not through the workflow) may look different now."""
    # A fixture (loaddata, a restore) brings its own generation row: leave it as restored.
    if not raw and instance.status in PUBLIC_STATUSES:
        generation_bump()


def item_tags_changed(sender, instance, action: str, **kwargs) -> None:
    """Tags added to or taken from a public item change its card and the facets."""
    if action.startswith("post_") and getattr(instance, "status", None) in PUBLIC_STATUSES:
        generation_bump()


def row_deleted(sender, **kwargs) -> None:
    """Any deleted item, source or tag: readers may have seen it."""
    generation_bump()


def row_renamed(sender, created: bool = False, raw: bool = False, **kwargs) -> None:
    """A source or tag saved: its name is on cards and filters (a new one is on none yet)."""
    if not created and not raw:
        generation_bump()
