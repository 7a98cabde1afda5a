"""Statements that pick rows by a list of ids read the same rows whatever the list's length.

On PostgreSQL the list is one array parameter (`feed.sql.in_values`): psycopg
parses a statement of more than 50 parameters again on every call, and a page
of 50 cards asks with 51 ids.
"""

import pytest

from feed.models import Item
from feed.models.items import card_tags_attach
from tests.factories import make_item

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("count", [1, 50, 51, 120])
def test_every_item_gets_its_own_tags_however_many_are_asked_for(count):
    for n in range(count):
        item = make_item(title=f"item {n}")
        item.tags.add(f"tag {n % 7}", "共同")
    items = list(Item.objects.order_by("pk"))

    card_tags_attach(items)

    for n, item in enumerate(items):
        assert sorted(tag.name for tag in item.card_tags) == sorted([f"tag {n % 7}", "共同"])


def test_no_tags_read_for_items_of_other_lists():
    tagged, other = make_item(), make_item()
    tagged.tags.add("只在这里")
    other.tags.add("别处")

    card_tags_attach([tagged])

    assert [tag.name for tag in tagged.card_tags] == ["只在这里"]
