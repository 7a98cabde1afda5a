"""A fetch's two rows written as plain SQL hold exactly what the ORM wrote before."""

import datetime

import pytest
from django.db import connection

from feed.ingest.rows import RowWrites
from feed.models import FetchAttempt, Source
from tests.factories import make_source

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 12, 1, 9, 0, 0, 123456, tzinfo=datetime.UTC)
# A time zone other than UTC: the stored value must be the same instant.
PARIS = datetime.timezone(datetime.timedelta(hours=1))


def stored(model, pk: int) -> dict:
    """The row as the database keeps it (no ORM conversion on the way back)."""
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {table} WHERE id = %s", [pk])  # noqa: S608
        names = [column[0] for column in cursor.description]
        return dict(zip(names, cursor.fetchone(), strict=True))


def state_release(**row) -> bool:
    """One source's state written alone; whether its lease was still held."""
    writes = RowWrites()
    writes.state_release(**row)
    return writes.write()


STATES = {
    "ok": {
        "last_fetched_at": NOW,
        "last_status": "ok",
        "last_http_status": 200,
        "consecutive_failures": 0,
        "fetch_interval": datetime.timedelta(minutes=22, microseconds=5),
        "next_fetch_at": datetime.datetime(2026, 12, 1, 10, 31, 2, 7, tzinfo=PARIS),
        "last_error": "",
        "last_warning": "Feed « bizarre » — read anyway",
        "etag": 'W/"abc"',
        "last_modified": "Tue, 01 Dec 2026 08:00:00 GMT",
    },
    "not modified": {
        "last_fetched_at": NOW,
        "last_status": "not_modified",
        "last_http_status": 304,
        "consecutive_failures": 0,
        "fetch_interval": datetime.timedelta(hours=1, minutes=30),
        "next_fetch_at": NOW + datetime.timedelta(hours=1),
        "last_error": "",
    },
    "failed": {
        "last_fetched_at": NOW,
        "last_status": "failed",
        "last_http_status": None,
        "consecutive_failures": 3,
        "next_fetch_at": NOW + datetime.timedelta(hours=4),
        "last_error": "连接超时 (timed out)",
    },
}


@pytest.mark.parametrize("state", STATES.values(), ids=STATES.keys())
def test_the_sources_state_is_stored_as_the_orms_update_stored_it(state):
    leased = {"lease_owner": "w1", "lease_expires_at": NOW, "etag": "old", "last_warning": "old"}
    ours, orms = make_source(slug="ours", **leased), make_source(slug="orms", **leased)
    before = stored(Source, ours.pk)

    assert state_release(source_id=ours.pk, owner="w1", state=state)
    Source.objects.filter(pk=orms.pk, lease_owner="w1").update(
        **state, lease_owner="", lease_expires_at=None
    )

    ours_row, orms_row = stored(Source, ours.pk), stored(Source, orms.pk)
    different = {"id", "name", "slug", "feed_url", "created_at", "updated_at"}
    assert {k: v for k, v in ours_row.items() if k not in different} == {
        k: v for k, v in orms_row.items() if k not in different
    }
    # Like the ORM's update(), the state's write leaves updated_at alone.
    assert ours_row["updated_at"] == before["updated_at"]
    assert (ours_row["lease_owner"], ours_row["lease_expires_at"]) == ("", None)


def test_a_source_another_worker_took_is_left_as_it_is():
    source = make_source(lease_owner="w2", lease_expires_at=NOW)
    before = stored(Source, source.pk)

    assert not state_release(source_id=source.pk, owner="w1", state=STATES["ok"])

    assert stored(Source, source.pk) == before


def test_a_fetchs_history_row_is_stored_as_the_orm_stored_it():
    source = make_source()
    values = {
        "status": "partial",
        "http_status": 200,
        "items_new": 3,
        "items_updated": 1,
        "items_unchanged": 40,
        "items_skipped": 2,
        "skipped_reasons": {"no link": 1, "已删除": 1},
        "error": "",
        "warning": "Not well-formed: read with the lenient parser",
        "final_url": "https://example.com/feed?x=1",
        "worker": "host:1:abcd",
    }
    duration = datetime.timedelta(seconds=1, microseconds=234567)
    orms = FetchAttempt.objects.create(source=source, started_at=NOW, duration=duration, **values)

    writes = RowWrites()
    writes.attempt_insert(source_id=source.pk, started_at=NOW, duration=duration, **values)
    writes.write()

    ours = FetchAttempt.objects.exclude(pk=orms.pk).get()
    assert {k: v for k, v in stored(FetchAttempt, ours.pk).items() if k != "id"} == {
        k: v for k, v in stored(FetchAttempt, orms.pk).items() if k != "id"
    }
    assert ours.skipped_reasons == {"no link": 1, "已删除": 1}
    assert ours.duration == duration


def test_gathered_rows_are_written_together_and_a_lost_lease_is_told():
    leased = {"lease_owner": "w1", "lease_expires_at": NOW}
    ok, failed = make_source(slug="ok", **leased), make_source(slug="failed", **leased)
    taken = make_source(slug="taken", lease_owner="w2", lease_expires_at=NOW)
    before = stored(Source, taken.pk)
    writes = RowWrites()
    # States of different columns (an OK fetch's ETag, a failure's count).
    for source, state in ((ok, STATES["ok"]), (failed, STATES["failed"]), (taken, STATES["ok"])):
        writes.state_release(source_id=source.pk, owner="w1", state=state)
        writes.attempt_insert(
            source_id=source.pk,
            started_at=NOW,
            duration=datetime.timedelta(seconds=1),
            status=state["last_status"],
        )

    assert not writes.write()  # one of the three leases was another worker's

    ok.refresh_from_db()
    failed.refresh_from_db()
    assert (ok.last_status, ok.etag, ok.lease_owner) == ("ok", 'W/"abc"', "")
    assert (failed.last_status, failed.consecutive_failures, failed.lease_owner) == (
        "failed",
        3,
        "",
    )
    assert stored(Source, taken.pk) == before
    assert sorted(FetchAttempt.objects.values_list("status", flat=True)) == ["failed", "ok", "ok"]
    # Written: nothing is left to write again.
    assert writes.write()
    assert FetchAttempt.objects.count() == 3


def test_gathered_rows_whose_leases_are_all_held_say_so():
    sources = [make_source(slug=f"s{n}", lease_owner="w1", lease_expires_at=NOW) for n in range(3)]
    writes = RowWrites()
    for source in sources:
        writes.state_release(source_id=source.pk, owner="w1", state=STATES["not modified"])

    assert writes.write()
    assert set(Source.objects.values_list("last_status", "lease_owner")) == {("not_modified", "")}
