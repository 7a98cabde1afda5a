"""The workflow functions: who may make which move, from where, and what each move writes."""

import datetime

import pytest
from django.utils import timezone, translation

from editorial import signals
from editorial.errors import NotPermitted, ReasonRequired, TransitionNotAllowed
from editorial.models import ItemLogEntry, LogAction
from editorial.workflow import (
    TRANSITIONS,
    item_feature,
    item_move,
    item_publish,
    item_reject,
    item_unfeature,
)
from feed.models import Item
from tests.editorial.helpers import MAY_MOVE, ROLES, anonymous_or, item_state, make_actor
from tests.factories import make_chief_editor, make_item

pytestmark = pytest.mark.django_db

S = Item.Status
NOW = datetime.datetime(2026, 6, 19, 9, 50, tzinfo=datetime.UTC)


def run(action: LogAction, *, item: Item, by, **kwargs) -> Item:
    """Make the move through `item_move`, with a reason where it needs one."""
    if action == LogAction.REJECT:
        kwargs.setdefault("reason", "Duplicate")
    return item_move(action, item=item, by=by, **kwargs)


def item_in(status: str, **kwargs) -> Item:
    if status in (S.PUBLISHED, S.FEATURED):
        kwargs.setdefault("published_at", NOW - datetime.timedelta(hours=2))
    return make_item(status=status, **kwargs)


EVERY_MOVE = [(action, move.sources[0]) for action, move in TRANSITIONS.items()]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("action", "source"), EVERY_MOVE)
def test_permission_matrix_of_every_move(role, action, source):
    user = make_actor(role)
    item = item_in(source)
    before = item_state(item)

    if role in MAY_MOVE:
        run(action, item=item, by=user, now=NOW)
        assert Item.objects.get(pk=item.pk).status == TRANSITIONS[action].target
        assert ItemLogEntry.objects.filter(item=item).count() == 1
    else:
        with translation.override("en"), pytest.raises(NotPermitted) as refused:
            run(action, item=item, by=anonymous_or(user), now=NOW)
        assert refused.value.message == f"You are not allowed to {action} items."
        assert item_state(item) == before


def test_the_table_holds_exactly_the_moves_of_the_design():
    graph = {(source, move.target) for move in TRANSITIONS.values() for source in move.sources}

    assert graph == {
        (S.DRAFT, S.PUBLISHED),
        (S.DRAFT, S.FEATURED),
        (S.PUBLISHED, S.FEATURED),
        (S.FEATURED, S.PUBLISHED),
        (S.DRAFT, S.REJECTED),
        (S.PUBLISHED, S.REJECTED),
        (S.FEATURED, S.REJECTED),
        (S.REJECTED, S.DRAFT),
    }


DISALLOWED = [
    (action, status)
    for action, move in TRANSITIONS.items()
    for status in S.values
    if status not in move.sources
]


@pytest.mark.parametrize(("action", "status"), DISALLOWED)
def test_every_disallowed_move_is_refused_and_changes_nothing(action, status):
    item = item_in(status)
    before = item_state(item)

    with pytest.raises(TransitionNotAllowed) as refused:
        run(action, item=item, by=make_chief_editor(), now=NOW)

    assert item.title in refused.value.message
    assert item_state(item) == before


def test_a_rejected_item_cannot_be_featured():
    item = item_in(S.REJECTED, title="An old duplicate")

    with translation.override("en"), pytest.raises(TransitionNotAllowed) as refused:
        item_feature(item=item, by=make_chief_editor())

    assert refused.value.message == (
        "“An old duplicate” is rejected: only drafts and published items can be featured."
    )
    assert Item.objects.get(pk=item.pk).status == S.REJECTED


@pytest.mark.parametrize(("action", "source"), EVERY_MOVE)
def test_every_move_writes_exactly_one_history_entry(action, source):
    chief = make_chief_editor(username="mei")
    item = item_in(source)

    run(
        action,
        item=item,
        by=chief,
        now=NOW,
        **({"reason": "Off topic"} if action == "reject" else {}),
    )

    entry = ItemLogEntry.objects.get(item=item)
    assert (entry.action, entry.from_status, entry.to_status) == (
        action,
        source,
        TRANSITIONS[action].target,
    )
    assert (entry.by, entry.by_name, entry.at) == (chief, "mei", NOW)
    assert entry.note == ("Off topic" if action == "reject" else "")


def test_a_move_records_the_reviewer_and_bumps_the_version():
    chief = make_chief_editor()
    item = item_in(S.DRAFT)

    moved = item_publish(item=item, by=chief, now=NOW)

    assert (moved.reviewed_by, moved.reviewed_at, moved.published_at) == (chief, NOW, NOW)
    assert moved.version == 2
    assert ItemLogEntry.objects.get(item=item).version == 2


def test_featuring_a_published_item_keeps_its_publish_time():
    item = item_in(S.PUBLISHED)
    first_published = item.published_at

    item_feature(item=item, by=make_chief_editor(), now=NOW)

    assert Item.objects.get(pk=item.pk).published_at == first_published


def test_featuring_a_draft_publishes_it_from_now():
    item = item_in(S.DRAFT)

    featured = item_feature(item=item, by=make_chief_editor(), now=NOW)

    assert (featured.status, featured.published_at) == (S.FEATURED, NOW)


def test_rejecting_takes_a_published_item_off_the_site():
    item = item_in(S.PUBLISHED)

    item_reject(item=item, by=make_chief_editor(), reason="Wrong source", now=NOW)

    assert not Item.objects.visible(now=NOW).filter(pk=item.pk).exists()
    assert Item.objects.get(pk=item.pk).published_at is None


@pytest.mark.parametrize("reason", ["", "   "])
def test_a_rejection_needs_a_reason(reason):
    item = item_in(S.DRAFT)
    before = item_state(item)

    with pytest.raises(ReasonRequired):
        item_reject(item=item, by=make_chief_editor(), reason=reason)

    assert item_state(item) == before


def test_a_move_based_on_a_stale_status_is_refused():
    chief = make_chief_editor()
    item = item_in(S.DRAFT, title="Seen as a draft")
    stale = Item.objects.get(pk=item.pk)
    item_publish(item=item, by=chief, now=NOW)
    before = item_state(item)

    with translation.override("en"), pytest.raises(TransitionNotAllowed) as refused:
        item_feature(item=stale, by=chief, now=NOW)

    assert "changed by someone else" in refused.value.message
    assert item_state(item) == before


def test_a_scheduled_item_becomes_visible_when_its_time_comes_and_not_before():
    at = NOW + datetime.timedelta(hours=3)
    item = item_publish(item=item_in(S.DRAFT), by=make_chief_editor(), at=at, now=NOW)

    assert item.published_at == at
    assert not Item.objects.visible(now=NOW).filter(pk=item.pk).exists()
    assert Item.objects.scheduled(now=NOW).filter(pk=item.pk).exists()
    assert not Item.objects.visible(now=at - datetime.timedelta(seconds=1)).filter(pk=item.pk)
    assert Item.objects.visible(now=at).filter(pk=item.pk).exists()


def test_a_scheduled_item_reaches_the_stream_when_the_clock_gets_there(client, monkeypatch):
    real_now = timezone.now()
    at = real_now + datetime.timedelta(hours=3)
    item_publish(
        item=item_in(S.DRAFT, title="Announced for later"),
        by=make_chief_editor(),
        at=at,
    )

    assert "Announced for later" not in client.get("/").text

    monkeypatch.setattr(timezone, "now", lambda: at - datetime.timedelta(minutes=1))
    assert "Announced for later" not in client.get("/").text

    monkeypatch.setattr(timezone, "now", lambda: at)
    assert "Announced for later" in client.get("/").text


def test_a_naive_publish_time_is_refused():
    item = item_in(S.DRAFT)

    with pytest.raises(ValueError, match="aware"):
        item_publish(item=item, by=make_chief_editor(), at=datetime.datetime(2026, 6, 20, 9))

    assert Item.objects.get(pk=item.pk).status == S.DRAFT


def test_signals_go_out_after_commit_describing_the_move(django_capture_on_commit_callbacks):
    heard = []

    def listener(signal_name):
        def receive(sender, item, action, from_status, to_status, by, **kwargs):
            heard.append((signal_name, item.pk, action, from_status, to_status))

        return receive

    receivers = {
        name: listener(name)
        for name in ("item_transitioned", "item_published", "item_featured", "item_unfeatured")
    }
    for name, receiver in receivers.items():
        getattr(signals, name).connect(receiver)
    try:
        chief = make_chief_editor()
        item = item_in(S.DRAFT)
        with django_capture_on_commit_callbacks(execute=True):
            item_publish(item=item, by=chief, now=NOW)
            assert heard == []
        with django_capture_on_commit_callbacks(execute=True):
            item_feature(item=item, by=chief, now=NOW)
        with django_capture_on_commit_callbacks(execute=True):
            item_unfeature(item=item, by=chief, now=NOW)
    finally:
        for name, receiver in receivers.items():
            getattr(signals, name).disconnect(receiver)

    assert heard == [
        ("item_transitioned", item.pk, "publish", "draft", "published"),
        ("item_published", item.pk, "publish", "draft", "published"),
        ("item_transitioned", item.pk, "feature", "published", "featured"),
        ("item_featured", item.pk, "feature", "published", "featured"),
        ("item_transitioned", item.pk, "unfeature", "featured", "published"),
        ("item_unfeatured", item.pk, "unfeature", "featured", "published"),
    ]


def test_rejecting_a_public_item_announces_it_unpublished(django_capture_on_commit_callbacks):
    heard = []

    def receive(sender, item, **kwargs):
        heard.append(item.pk)

    signals.item_unpublished.connect(receive)
    try:
        item = item_in(S.FEATURED)
        with django_capture_on_commit_callbacks(execute=True):
            item_reject(item=item, by=make_chief_editor(), reason="Retracted by its authors")
    finally:
        signals.item_unpublished.disconnect(receive)

    assert heard == [item.pk]


def test_a_failing_receiver_neither_undoes_the_move_nor_silences_the_others(
    django_capture_on_commit_callbacks, caplog
):
    heard = []

    def broken(sender, **kwargs):
        raise RuntimeError("webhook endpoint down")

    def working(sender, item, **kwargs):
        heard.append(item.pk)

    signals.item_published.connect(broken)
    signals.item_published.connect(working)
    try:
        item = item_in(S.DRAFT)
        with django_capture_on_commit_callbacks(execute=True):
            item_publish(item=item, by=make_chief_editor())
    finally:
        signals.item_published.disconnect(broken)
        signals.item_published.disconnect(working)

    assert heard == [item.pk]
    assert Item.objects.get(pk=item.pk).status == S.PUBLISHED
    assert "webhook endpoint down" in caplog.text


def test_item_move_refuses_a_publish_time_for_a_move_that_keeps_the_time():
    item = item_in(S.FEATURED)
    before = item_state(item)

    with pytest.raises(TypeError):
        item_move(LogAction.UNFEATURE, item=item, by=make_chief_editor(), at=NOW)

    assert item_state(item) == before


def test_item_move_by_name_is_the_move_itself():
    item = item_in(S.DRAFT, recommendation="Worth it")

    moved = item_move("feature", item=item, by=make_chief_editor(), now=NOW)

    assert (moved.status, moved.published_at) == (S.FEATURED, NOW)
