"""The database itself refuses rows that break AITOP's rules."""

import pytest
from django.db import IntegrityError, transaction

from feed.models import Item
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


def refused(**kwargs) -> bool:
    try:
        with transaction.atomic():
            make_item(**kwargs)
    except IntegrityError:
        return True
    return False


def test_a_second_item_with_the_same_canonical_url_is_refused():
    make_item(url="https://lab.example/post", guid="a")

    assert refused(url="https://lab.example/post", guid="b")
    assert Item.objects.filter(url="https://lab.example/post").count() == 1


def test_a_second_item_with_the_same_guid_in_one_source_is_refused():
    source = make_source()
    make_item(source=source, guid="tag:lab.example,2026:1", url="https://lab.example/1")

    assert refused(source=source, guid="tag:lab.example,2026:1", url="https://lab.example/2")


def test_the_same_guid_in_two_sources_is_two_items():
    make_item(guid="42", url="https://one.example/42")
    make_item(guid="42", url="https://two.example/42")

    assert Item.objects.filter(guid="42").count() == 2


def test_items_without_a_guid_do_not_collide():
    source = make_source()
    make_item(source=source, guid="", url="https://lab.example/a")
    make_item(source=source, guid="", url="https://lab.example/b")

    assert source.items.count() == 2


@pytest.mark.parametrize("heat", [101, -1, 1000])
def test_heat_outside_0_to_100_is_refused(heat):
    assert refused(heat=heat)


@pytest.mark.parametrize("heat", [0, 100])
def test_heat_at_the_bounds_is_accepted(heat):
    assert not refused(heat=heat)


def test_heat_101_is_refused_on_update_too():
    item = make_item(heat=50)

    with pytest.raises(IntegrityError), transaction.atomic():
        Item.objects.filter(pk=item.pk).update(heat=101)

    item.refresh_from_db()
    assert item.heat == 50


def test_an_unknown_status_is_refused():
    assert refused(status="archived", published_at=None)


def test_a_published_item_without_a_publish_time_is_refused():
    assert refused(status=Item.Status.PUBLISHED, published_at=None)
