"""Items and sources read from the database are the instances Django's own loading makes."""

import datetime

import pytest
from django.db.models import FETCH_PEERS
from django.db.models.signals import post_init, pre_init

from feed.models import Item, Source
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


@pytest.fixture
def items():
    source = make_source(name="Lumen Lab", handle="lumenlab")
    return [
        make_item(
            title=f"Lumen-{n} notes",
            source=source,
            summary=f"Summary {n}",
            tags=["大模型"],
            published_at=datetime.datetime(2026, 6, 18, 8, n, tzinfo=datetime.UTC),
        )
        for n in range(3)
    ]


def _values(instance) -> dict:
    return {name: value for name, value in vars(instance).items() if name != "_state"}


def _loaded(queryset) -> list[tuple]:
    """What each loaded item and its cached source hold, and their state."""
    rows = []
    for item in queryset:
        source = item._state.fields_cache.get("source")
        rows.append(
            (
                _values(item),
                item.get_deferred_fields(),
                (item._state.adding, item._state.db),
                source and _values(source),
                source and (source._state.adding, source._state.db),
            )
        )
    return rows


def _djangos_own(queryset) -> list[tuple]:
    # Anyone listening to post_init gets Django's loading, with __init__.
    receiver = lambda **kwargs: None  # noqa: E731
    post_init.connect(receiver, sender=Item)
    post_init.connect(receiver, sender=Source)
    try:
        return _loaded(queryset.all())
    finally:
        post_init.disconnect(receiver, sender=Item)
        post_init.disconnect(receiver, sender=Source)


@pytest.mark.parametrize(
    "queryset",
    [
        lambda: Item.objects.order_by("pk"),
        lambda: Item.objects.select_related("source").order_by("pk"),
        lambda: (
            Item.objects.select_related("source")
            .only("id", "title", "published_at", "source__name")
            .order_by("pk")
        ),
        lambda: Item.objects.defer("summary", "body").order_by("pk"),
    ],
    ids=["whole", "with source", "some columns", "deferred"],
)
def test_loaded_items_are_the_ones_django_makes(items, queryset):
    ours = _loaded(queryset())

    assert ours == _djangos_own(queryset())
    assert [row[0]["title"] for row in ours] == ["Lumen-0 notes", "Lumen-1 notes", "Lumen-2 notes"]
    assert all(row[2] == (False, "default") for row in ours)


def test_a_deferred_field_is_read_when_asked_and_a_save_keeps_the_rest(
    items, django_assert_num_queries
):
    item = Item.objects.only("id", "title", "version").get(pk=items[1].pk)

    with django_assert_num_queries(1):
        assert item.summary == "Summary 1"
    item = Item.objects.only("id", "title").get(pk=items[1].pk)
    item.title = "Lumen-1, revised"
    item.save()

    stored = Item.objects.get(pk=items[1].pk)
    assert (stored.title, stored.summary, stored.source.name) == (
        "Lumen-1, revised",
        "Summary 1",
        "Lumen Lab",
    )
    assert list(stored.tags.names()) == ["大模型"]


def test_a_post_init_receiver_sees_every_loaded_item(items):
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.title)

    post_init.connect(receiver, sender=Item)
    try:
        list(Item.objects.order_by("pk"))
    finally:
        post_init.disconnect(receiver, sender=Item)

    assert seen == ["Lumen-0 notes", "Lumen-1 notes", "Lumen-2 notes"]


def test_a_pre_init_receiver_of_another_model_sees_only_that_model(items):
    # With any receiver connected, each model is asked about its own.
    seen = []

    def receiver(sender, **kwargs):
        seen.append(sender)

    pre_init.connect(receiver, sender=Source)
    try:
        loaded = list(Item.objects.select_related("source").order_by("pk"))
    finally:
        pre_init.disconnect(receiver, sender=Source)

    assert seen == [Source, Source, Source]
    assert [item.source.name for item in loaded] == ["Lumen Lab"] * 3


def test_the_fetch_mode_of_the_queryset_holds_for_loaded_items(items, django_assert_num_queries):
    loaded = list(Item.objects.fetch_mode(FETCH_PEERS).only("id").order_by("pk"))

    # With peers, the first deferred read loads that field for all three.
    with django_assert_num_queries(1):
        titles = [item.title for item in loaded]
    assert titles == ["Lumen-0 notes", "Lumen-1 notes", "Lumen-2 notes"]
