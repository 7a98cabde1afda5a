"""Heat from stored parts: each part moves it as docs/heat.md says, decay, pins, bulk recompute."""

import datetime

import pytest

from feed.clicks import item_count_click
from feed.models import Item
from stories.heat import heat_recompute, heat_set
from stories.membership import item_match
from stories.models import HeatScore
from tests.factories import make_item, make_source, make_user

pytestmark = pytest.mark.django_db


def _heat(item: Item, now) -> int:
    heat_recompute(item_ids=[item.pk], now=now)
    item.refresh_from_db()
    return item.heat


def test_source_weight_counts_half(clock):
    item = make_item(source=make_source(weight=80), published_at=clock.now)

    assert _heat(item, clock.now) == 40
    assert HeatScore.objects.get(item=item).source_weight == 80


def test_featuring_adds_fifteen(clock):
    item = make_item(source=make_source(weight=80), status="featured", published_at=clock.now)

    assert _heat(item, clock.now) == 55


def test_clicks_add_five_per_doubling_up_to_twenty(clock):
    item = make_item(source=make_source(weight=80), published_at=clock.now, clicks=3)
    assert _heat(item, clock.now) == 40 + 10  # 5 × log2(1 + 3)

    Item.objects.filter(pk=item.pk).update(clicks=10_000)
    assert _heat(item, clock.now) == 40 + 20


def test_each_other_source_in_the_story_adds_ten(clock):
    one = make_item(source=make_source(weight=80), title="Introducing Claude Opus 4.5")
    two = make_item(source=make_source(weight=40), title="Anthropic 发布 Claude Opus 4.5")
    Item.objects.filter(pk__in=[one.pk, two.pk]).update(published_at=clock.now)
    item_match(item=one)
    item_match(item=two)

    assert _heat(one, clock.now) == 40 + 10
    assert _heat(two, clock.now) == 20 + 10


def test_an_editors_adjustment_is_added_and_a_pinned_heat_stays(clock):
    editor = make_user(perms=["feed.change_item"])
    item = make_item(source=make_source(weight=80), published_at=clock.now)

    heat_set(item=item, by=editor, adjustment=20, now=clock.now)
    item.refresh_from_db()
    assert item.heat == 60

    heat_set(item=item, by=editor, pinned=7, now=clock.now)
    later = clock.now + datetime.timedelta(days=30)
    assert _heat(item, later) == 7


def test_heat_halves_after_one_half_life(clock, settings):
    settings.AITOP_HEAT_HALF_LIFE_HOURS = 12
    item = make_item(source=make_source(weight=80), published_at=clock.now)

    assert _heat(item, clock.now) == 40
    assert _heat(item, clock.now + datetime.timedelta(hours=12)) == 20
    assert _heat(item, clock.now + datetime.timedelta(hours=24)) == 10


def test_an_item_years_old_has_no_heat_and_breaks_nothing(clock):
    # 0.5 ** (age / half-life) underflows on PostgreSQL unless it is bounded.
    old = make_item(source=make_source(weight=90), published_at=clock.now)

    assert _heat(old, clock.now + datetime.timedelta(days=3 * 365)) == 0


def test_without_the_permission_heat_cannot_be_pinned(clock):
    from editorial.errors import NotPermitted

    item = make_item(heat=33)
    with pytest.raises(NotPermitted):
        heat_set(item=item, by=make_user(), pinned=99)
    item.refresh_from_db()
    assert item.heat == 33 and not HeatScore.objects.filter(item=item).exists()


def test_the_bulk_recompute_is_a_few_statements_whatever_the_count(
    clock, django_assert_max_num_queries
):
    source = make_source(weight=60)
    Item.objects.bulk_create(
        Item(
            source=source,
            title=f"Item {n}",
            url=f"https://bulk.example/{n}",
            kind="blog",
            status="published",
            published_at=clock.now - datetime.timedelta(hours=n),
        )
        for n in range(200)
    )

    # Savepoint, insert missing rows, parts, heat, does a public heat move, copy, release.
    with django_assert_max_num_queries(7):
        changed = heat_recompute(now=clock.now)

    assert changed == Item.objects.filter(heat__gt=0).count() > 100
    assert list(Item.objects.order_by("-published_at").values_list("heat", flat=True)[:3]) == [
        30,
        29,
        28,
    ]


def test_a_click_recomputes_the_items_heat_after_commit(clock, django_capture_on_commit_callbacks):
    item = make_item(source=make_source(weight=80), published_at=clock.now)
    heat_recompute(item_ids=[item.pk], now=clock.now)

    with django_capture_on_commit_callbacks(execute=True):
        item_count_click(pk=item.pk)

    item.refresh_from_db()
    assert (item.clicks, item.heat) == (1, 45)
