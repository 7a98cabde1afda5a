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
from django.db.models.functions import Cast, Coalesce, Greatest, Least, Log, Power, Round
from django.utils import timezone

from feed.models import Item
from stories.models import HeatScore, StoryItem

SOURCE_SHARE = 0.5
FEATURED_POINTS = 15
CLICK_SCALE = 5
CLICK_CAP = 20
STORY_POINTS = 10
STORY_CAP = 30


def half_life_hours() -> float:
    return float(settings.AITOP_HEAT_HALF_LIFE_HOURS)


class EpochHours(models.Func):
    """Hours since 1970 of a datetime column, on PostgreSQL and SQLite."""

    output_field = FloatField()

    def as_postgresql(self, compiler, conn, **extra):
        return self.as_sql(
            compiler, conn, template="(EXTRACT(EPOCH FROM %(expressions)s) / 3600.0)"
        )

    def as_sqlite(self, compiler, conn, **extra):
        return self.as_sql(
            compiler, conn, template="((julianday(%(expressions)s) - 2440587.5) * 24.0)"
        )


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
    decay = Power(Value(0.5), F("age_hours") / Value(half_life_hours()))
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
    now_hours = now.timestamp() / 3600.0
    items = Item.objects.all() if item_ids is None else Item.objects.filter(pk__in=item_ids)
    scores = (
        HeatScore.objects.all()
        if item_ids is None
        else HeatScore.objects.filter(item_id__in=item_ids)
    )
    with transaction.atomic():
        _add_missing(items)
        item = Item.objects.filter(pk=OuterRef("item_id"))
        sources = StoryItem.objects.filter(item_id=OuterRef("item_id")).values(
            "story__source_count"
        )
        scores.update(
            source_weight=Subquery(item.values("source__weight")[:1]),
            featured=Subquery(
                item.annotate(
                    is_featured=Case(
                        When(status=Item.Status.FEATURED, then=Value(True)),
                        default=Value(False),
                        output_field=models.BooleanField(),
                    )
                ).values("is_featured")[:1]
            ),
            clicks=Subquery(item.values("clicks")[:1]),
            story_sources=Coalesce(Subquery(sources[:1]), Value(1)),
            age_hours=Greatest(
                Value(0.0),
                Value(now_hours)
                - EpochHours(
                    Subquery(
                        item.annotate(
                            moment=Coalesce("published_at", "original_published_at", "created_at")
                        ).values("moment")[:1]
                    )
                ),
            ),
            computed_at=now,
        )
        scores.update(heat=_heat_expression())
        changed = items.exclude(
            heat=Subquery(HeatScore.objects.filter(item_id=OuterRef("pk")).values("heat")[:1])
        ).update(heat=Subquery(HeatScore.objects.filter(item_id=OuterRef("pk")).values("heat")[:1]))
    return changed


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
