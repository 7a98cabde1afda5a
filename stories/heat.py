"""Heat, 0–100, from stored parts: source weight, editor boost, clicks, story size, age.

    points = SOURCE_SHARE × weight + FEATURED_POINTS (if featured) + adjustment
             + min(CLICK_CAP, CLICK_SCALE × log2(1 + clicks))
             + min(STORY_CAP, STORY_POINTS × (sources − 1))
    heat   = clamp(round(points × 0.5 ^ (age_hours / half_life)), 0, 100)
             or the pinned heat, when an editor pinned one.

docs/heat.md explains the constants with a worked example. A recompute is
four statements whatever the number of items: add the missing rows, refresh
the parts from the items, compute the heat, copy it where it differs.
"""

import datetime

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Case, F, FloatField, OuterRef, Subquery, Value, When
from django.db.models.functions import Cast, Greatest, Least, Log, Power, Round
from django.utils import timezone

from feed.freshness import generation_bump
from feed.models import PUBLIC_Q, Item, Source
from stories.models import HeatScore, Story, StoryItem

SOURCE_SHARE = 0.5
FEATURED_POINTS = 15
CLICK_SCALE = 5
CLICK_CAP = 20
STORY_POINTS = 10
STORY_CAP = 30


def half_life_hours() -> float:
    return float(settings.AITOP_HEAT_HALF_LIFE_HOURS)


def _points_expression():
    clicks = Least(
        Value(float(CLICK_CAP)),
        Value(float(CLICK_SCALE)) * Log(Value(2.0), Cast(F("clicks"), FloatField()) + 1.0),
    )
    story = Least(
        Value(float(STORY_CAP)),
        Value(float(STORY_POINTS)) * (Cast(F("story_sources"), FloatField()) - 1.0),
    )
    featured = Case(When(featured=True, then=Value(float(FEATURED_POINTS))), default=Value(0.0))
    return (
        Value(SOURCE_SHARE) * Cast(F("source_weight"), FloatField())
        + featured
        + Cast(F("adjustment"), FloatField())
        + clicks
        + story
    )


def _heat_expression():
    # 64 half-lives at most: any heat is 0 by then, and PostgreSQL raises an
    # underflow on 0.5 ** (a few thousand), which years-old items reach.
    halvings = Least(Value(64.0), F("age_hours") / Value(half_life_hours()))
    decay = Power(Value(0.5), halvings)
    computed = Greatest(Value(0.0), Least(Value(100.0), Round(_points_expression() * decay)))
    return Case(
        When(pinned__isnull=False, then=F("pinned")),
        default=Cast(computed, models.IntegerField()),
    )


def heat_recompute(
    *, item_ids: list[int] | None = None, now: datetime.datetime | None = None
) -> int:
    """Recompute the heat of these items (all items when None); returns how many changed."""
    now = now or timezone.now()
    items = Item.objects.all() if item_ids is None else Item.objects.filter(pk__in=item_ids)
    scores = (
        HeatScore.objects.all()
        if item_ids is None
        else HeatScore.objects.filter(item_id__in=item_ids)
    )
    with transaction.atomic():
        _add_missing(items)
        _parts_update(item_ids=item_ids, now=now)
        # Only rows whose heat moves are written: most hold still between two runs.
        heat = _heat_expression()
        scores.exclude(heat=heat).update(heat=heat)
        stored = Subquery(HeatScore.objects.filter(item_id=OuterRef("pk")).values("heat")[:1])
        moving = items.exclude(heat=stored)
        # Cards show heat and hot order depends on it; a draft's heat is the desk's own.
        if moving.filter(PUBLIC_Q).exists():
            generation_bump()
        changed = moving.update(heat=stored)
    return changed


def _epoch_hours_sql(column: str) -> str:
    if connection.vendor == "postgresql":
        return f"(EXTRACT(EPOCH FROM {column}) / 3600.0)"
    return f"((julianday({column}) - 2440587.5) * 24.0)"


def _parts_update(*, item_ids: list[int] | None, now: datetime.datetime) -> None:
    """One UPDATE … FROM (a join, on PostgreSQL and SQLite alike) refreshing every stored part."""
    quote = connection.ops.quote_name
    moment = "COALESCE(i.published_at, i.original_published_at, i.created_at)"
    greatest = "GREATEST" if connection.vendor == "postgresql" else "MAX"
    where, params = "", [Item.Status.FEATURED, now.timestamp() / 3600.0, now]
    if item_ids is not None:
        where = f" AND i.id IN ({', '.join(['%s'] * len(item_ids))})" if item_ids else " AND 1 = 0"
        params.extend(item_ids)
    sql = (
        f"UPDATE {quote(HeatScore._meta.db_table)} AS h SET"  # noqa: S608
        " source_weight = s.weight, featured = (i.status = %s), clicks = i.clicks,"
        " story_sources = COALESCE(st.source_count, 1),"
        f" age_hours = {greatest}(0.0, %s - {_epoch_hours_sql(moment)}), computed_at = %s"
        f" FROM {quote(Item._meta.db_table)} AS i"
        f" JOIN {quote(Source._meta.db_table)} AS s ON s.id = i.source_id"
        f" LEFT JOIN {quote(StoryItem._meta.db_table)} AS si ON si.item_id = i.id"
        f" LEFT JOIN {quote(Story._meta.db_table)} AS st ON st.id = si.story_id"
        f" WHERE h.item_id = i.id{where}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _add_missing(items) -> None:
    """One INSERT … SELECT of a row for every item that has none yet."""
    ids_sql, params = items.filter(heat_score__isnull=True).values("pk").query.sql_with_params()
    table = connection.ops.quote_name(HeatScore._meta.db_table)
    items_table = connection.ops.quote_name(Item._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (item_id, source_weight, featured, adjustment, clicks,"  # noqa: S608
            f" story_sources, age_hours, heat) SELECT id, 0, %s, 0, 0, 1, 0, 0 FROM {items_table}"
            f" WHERE id IN ({ids_sql})",
            [False, *params],
        )


def heat_set(
    *,
    item: Item,
    by,
    adjustment: int | None = None,
    pinned: int | bool | None = False,
    now: datetime.datetime | None = None,
) -> HeatScore:
    """An editor's adjustment (−50…+50) or pinned heat (0–100, None to unpin), then recompute."""
    if not (by is not None and by.is_active and by.has_perm("feed.change_item")):
        from editorial.errors import NotPermitted

        raise NotPermitted("You are not allowed to change heat.")
    changes = {}
    if adjustment is not None:
        if not -50 <= adjustment <= 50:
            raise ValueError("adjustment must be between -50 and 50")
        changes["adjustment"] = adjustment
    if pinned is not False:
        if pinned is not None and not 0 <= pinned <= 100:
            raise ValueError("pinned heat must be between 0 and 100")
        changes["pinned"] = pinned
    with transaction.atomic():
        HeatScore.objects.get_or_create(item=item)
        HeatScore.objects.filter(item=item).update(**changes)
        heat_recompute(item_ids=[item.pk], now=now)
    return HeatScore.objects.get(item=item)


def heat_breakdown(score: HeatScore | None) -> dict:
    """The parts of an item's heat as the API and the admin show them."""
    if score is None:
        return {}
    import math

    points = {
        "source": round(SOURCE_SHARE * score.source_weight, 1),
        "featured": FEATURED_POINTS if score.featured else 0,
        "adjustment": score.adjustment,
        "clicks": round(min(CLICK_CAP, CLICK_SCALE * math.log2(1 + score.clicks)), 1),
        "story": min(STORY_CAP, STORY_POINTS * (score.story_sources - 1)),
    }
    return {
        "heat": score.heat,
        "pinned": score.pinned,
        "source_weight": score.source_weight,
        "featured": score.featured,
        "adjustment": score.adjustment,
        "clicks": score.clicks,
        "story_sources": score.story_sources,
        "age_hours": round(score.age_hours, 1),
        "half_life_hours": half_life_hours(),
        "decay": round(0.5 ** (score.age_hours / half_life_hours()), 4),
        "points": points,
        "computed_at": score.computed_at,
    }
