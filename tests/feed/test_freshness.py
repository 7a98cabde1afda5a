"""The publish generation: moved on commit, once a transaction, never by a rollback."""

import datetime

import pytest
from django.db import transaction

from feed.freshness import generation_bump, generation_current
from feed.models import Generation
from tests.factories import make_item

pytestmark = pytest.mark.django_db(transaction=True)


def test_many_bumps_in_one_transaction_move_the_generation_once(clock):
    before = generation_current().value

    with transaction.atomic():
        for _ in range(5):
            generation_bump()
        assert generation_current().value == before  # nothing until the commit

    assert generation_current().value == before + 1


def test_a_rolled_back_transaction_leaves_the_generation_alone(clock):
    before = generation_current().value

    with pytest.raises(RuntimeError), transaction.atomic():
        generation_bump()
        raise RuntimeError("the write failed")

    assert generation_current().value == before


def test_a_bump_in_a_savepoint_that_rolls_back_is_redone_by_a_later_one(clock):
    before = generation_current().value

    with transaction.atomic():
        with pytest.raises(RuntimeError), transaction.atomic():
            generation_bump()
            raise RuntimeError("inner failure")
        generation_bump()

    assert generation_current().value == before + 1


def test_changed_at_moves_a_second_at_least_even_within_one_second(clock):
    first = generation_current().changed_at

    generation_bump()
    generation_bump()

    assert generation_current().changed_at == first + datetime.timedelta(seconds=2)


def test_a_draft_saved_by_ingestion_does_not_move_it(clock):
    before = generation_current().value

    make_item(title="Just fetched", status="draft")

    assert generation_current().value == before


def test_the_row_remembers_the_next_scheduled_publish_time(clock):
    due = clock.now + datetime.timedelta(hours=3)

    make_item(title="Later", published_at=due)

    assert Generation.objects.get().next_publish_at == due


def test_the_state_read_without_a_shared_cache_is_the_rows_with_aware_times(clock, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    make_item(title="Now")
    make_item(title="Later", published_at=clock.now + datetime.timedelta(hours=3))
    row = Generation.objects.get()

    state = generation_current()

    assert (state.value, state.changed_at, state.next_publish_at) == (
        row.value,
        row.changed_at,
        row.next_publish_at,
    )
    assert state.changed_at.utcoffset() == datetime.timedelta(0)
    assert state.next_publish_at.utcoffset() == datetime.timedelta(0)
