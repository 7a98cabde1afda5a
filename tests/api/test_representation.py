"""An item written out by hand is what DRF's generic walk over its declared fields gives."""

import datetime

import pytest
from django.utils import timezone, translation
from rest_framework import serializers
from rest_framework.test import APIRequestFactory

from api.serializers.items import ItemSerializer, items_for_reading
from feed.models import Item
from stories.heat import heat_recompute
from stories.membership import item_match
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


def _generic(item: Item, context: dict) -> dict:
    return serializers.ModelSerializer.to_representation(ItemSerializer(context=context), item)


@pytest.fixture
def varied(clock):
    """Items that differ in every way the payload shows."""
    wire = make_source(name="The Wire", slug="wire", weight=90)
    account = make_source(name="Karpathy", slug="karpathy", kind="tweet", handle="@karpathy")
    led = make_item(
        source=wire,
        url="https://wire.example/gpt-5",
        title="OpenAI GPT-5 发布: what's new?",
        summary="A <b>summary</b> & more.",
        recommendation="Read it.",
        authors="María Gragera Garcés",
        category="model",
        status="featured",
        tags=["长上下文", "agents", "C++"],
        published_at=clock.now - datetime.timedelta(hours=3),
    )
    follower = make_item(
        source=account,
        url="https://www.wire.example/gpt-5/",
        title="GPT-5 is out",
        kind="tweet",
        published_at=clock.now - datetime.timedelta(minutes=90),
    )
    item_match(item=led)
    item_match(item=follower)
    heat_recompute(item_ids=[led.pk, follower.pk], now=clock.now)
    return [
        led,
        follower,
        # A title that slugifies to nothing, a slug with characters reverse() encodes.
        make_item(title="!!!", published_at=clock.now - datetime.timedelta(days=1)),
        make_item(title="Ünïcode 模型 — 50% off?", published_at=clock.now),
        # A draft: no publish time yet.
        make_item(title="Draft", status="draft", published_at=None),
    ]


def _fresh(items) -> list[Item]:
    """The items as a list or a read loads them: only the columns the payload shows."""
    return list(items_for_reading(Item.objects.filter(pk__in=[i.pk for i in items])).order_by("pk"))


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_written_out_item_equals_drfs_walk_over_every_field(varied, language):
    request = APIRequestFactory().get("/api/v1/items/", HTTP_HOST="testserver")
    with translation.override(language), timezone.override("Asia/Shanghai"):
        for context in ({"request": request}, {}):
            for item in _fresh(varied):
                written = ItemSerializer(item, context=context).data

                assert written == _generic(item, context)
                assert list(written) == ItemSerializer.Meta.fields


def test_a_list_writes_each_item_as_drf_would(varied, django_assert_num_queries):
    request = APIRequestFactory().get("/api/v1/items/", HTTP_HOST="testserver")
    items = _fresh(varied)

    # Everything it shows was loaded: no column is read afterwards, one query an item.
    with django_assert_num_queries(0):
        written = ItemSerializer(items, many=True, context={"request": request}).data

    assert written == [_generic(item, {"request": request}) for item in items]
    # The fixture's story and heat reach the payload: the comparison covers them.
    assert any(entry["story"] for entry in written)
    assert any(entry["heat_breakdown"] for entry in written)
