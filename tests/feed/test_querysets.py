"""`Item.objects.visible()` and friends: the one definition of what readers see."""

import datetime
import zoneinfo

import pytest
from django.utils import timezone

from feed.models import Item
from tests.factories import make_item

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 6, 19, 12, 0, tzinfo=datetime.UTC)
HOUR = datetime.timedelta(hours=1)


def titles(queryset) -> set[str]:
    return set(queryset.values_list("title", flat=True))


def test_visible_holds_published_and_featured_items_whose_time_has_come():
    make_item(title="published", status="published", published_at=NOW - HOUR)
    make_item(title="featured", status="featured", published_at=NOW - HOUR)
    make_item(title="draft", status="draft")
    make_item(title="rejected", status="rejected")
    make_item(title="scheduled", status="published", published_at=NOW + HOUR)
    make_item(title="featured later", status="featured", published_at=NOW + HOUR)

    assert titles(Item.objects.visible(now=NOW)) == {"published", "featured"}


def test_a_scheduled_item_becomes_visible_at_its_publish_time():
    make_item(title="scheduled", published_at=NOW + HOUR)

    assert titles(Item.objects.visible(now=NOW)) == set()
    assert titles(Item.objects.visible(now=NOW + HOUR)) == {"scheduled"}
    assert titles(Item.objects.scheduled(now=NOW)) == {"scheduled"}


def test_visible_defaults_to_the_current_time():
    make_item(title="past", published_at=timezone.now() - HOUR)
    make_item(title="future", published_at=timezone.now() + HOUR)

    assert titles(Item.objects.visible()) == {"past"}


def test_drafts_and_featured_name_their_status():
    make_item(title="draft", status="draft")
    make_item(title="featured", status="featured")
    make_item(title="published")

    assert titles(Item.objects.drafts()) == {"draft"}
    assert titles(Item.objects.featured()) == {"featured"}


def test_on_day_uses_the_site_time_zone():
    shanghai = zoneinfo.ZoneInfo("Asia/Shanghai")
    # 23:30 in Shanghai on June 19 is still June 19 there, though 15:30 UTC.
    make_item(title="late", published_at=datetime.datetime(2026, 6, 19, 23, 30, tzinfo=shanghai))
    make_item(title="next", published_at=datetime.datetime(2026, 6, 20, 0, 10, tzinfo=shanghai))

    assert titles(Item.objects.on_day(datetime.date(2026, 6, 19))) == {"late"}
    assert titles(Item.objects.on_day(datetime.date(2026, 6, 20))) == {"next"}


def test_tagged_needs_every_tag():
    make_item(title="both", tags=["推理", "量化"])
    make_item(title="one", tags=["推理"])

    assert titles(Item.objects.tagged("推理", "量化")) == {"both"}
    assert titles(Item.objects.tagged("推理")) == {"both", "one"}


def test_newest_first_orders_by_publish_time_then_id():
    older = make_item(published_at=NOW - 2 * HOUR)
    tie_a = make_item(published_at=NOW - HOUR)
    tie_b = make_item(published_at=NOW - HOUR)

    assert list(Item.objects.newest_first()) == [tie_b, tie_a, older]


def test_is_visible_and_is_scheduled_agree_with_the_querysets():
    now = datetime.datetime(2026, 6, 20, 12, 0, tzinfo=datetime.UTC)
    hour = datetime.timedelta(hours=1)
    items = [
        make_item(status="published", published_at=now - hour),
        make_item(status="featured", published_at=now),
        make_item(status="published", published_at=now + hour),
        make_item(status="draft"),
        make_item(status="rejected"),
    ]

    visible = set(Item.objects.visible(now=now).values_list("pk", flat=True))

    assert {item.pk for item in items if item.is_visible(now)} == visible
    assert [item.is_scheduled(now) for item in items] == [False, False, True, False, False]
