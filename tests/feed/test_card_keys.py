"""feed.cards.card_key: one key for equal cards in every process, a new one for any change."""

import sys

import pytest

from feed.cards import card_key
from feed.links import NO_FILTERS, StreamQuery
from feed.models import Item
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


def _loaded(pk: int) -> Item:
    return Item.objects.select_related("source").get(pk=pk)


def _key(item: Item, query: StreamQuery = NO_FILTERS) -> str:
    return card_key(item, query=query, base="/")


@pytest.fixture
def item():
    source = make_source(name="潮汐日报", slug="tidewater", handle="@tide")
    made = make_item(
        source=source,
        title="推理模型 reasoning",
        summary="A summary.",
        tags=["推理", "agents"],
        heat=40,
    )
    return _loaded(made.pk)


def test_the_same_card_read_twice_has_one_key(item):
    # Two workers read the row into strings of their own: the key must not
    # depend on which string objects hold the text (marshal's later versions
    # write interned strings and repeated objects differently).
    again = _loaded(item.pk)
    again.title = "".join(list(item.title))
    again.kind = sys.intern(str(item.kind))
    again.source.name = item.source.name[:1] + item.source.name[1:]

    assert _key(again) == _key(item)


@pytest.mark.parametrize(
    ("change", "value"),
    [
        ("title", "Another title"),
        ("summary", "Another summary."),
        ("recommendation", "Another reason."),
        ("authors", "Ada Moreau"),
        ("heat", 41),
        ("status", "featured"),
        ("category", "paper"),
    ],
)
def test_a_change_to_what_the_card_shows_changes_its_key(item, change, value):
    before = _key(item)
    setattr(item, change, value)

    assert _key(item) != before


def test_a_renamed_source_or_tag_changes_the_key(item):
    before = _key(item)
    item.source.name = "Tidewater Daily"
    renamed_source = _key(item)
    item.source.name = "潮汐日报"
    item.tags.filter(slug="agents").update(name="Agents")
    renamed_tag = _key(_loaded(item.pk))

    assert len({before, renamed_source, renamed_tag}) == 3


def test_the_filters_the_card_links_keep_are_in_its_key(item):
    assert _key(item) != _key(item, StreamQuery(kind="paper"))


def test_a_value_marshal_cannot_write_still_gives_a_key(item):
    # An unsaved edit holds the enum member, a str subclass marshal refuses.
    item.status = Item.Status.FEATURED
    enum_key = _key(item)
    item.status = Item.Status.DRAFT

    assert enum_key.startswith("aitop:card:")
    assert _key(item) != enum_key
