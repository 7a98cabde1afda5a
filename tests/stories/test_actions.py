"""Editors' story actions: make the lead, merge, split, reject duplicates, with permissions."""

import re

import pytest

from editorial.errors import NotPermitted
from editorial.models import ItemLogEntry
from feed.models import Item
from stories.actions import (
    StoryActionError,
    story_make_lead,
    story_merge,
    story_reject_duplicates,
    story_split,
)
from stories.membership import item_match
from stories.models import Story, StoryItem
from tests.factories import make_chief_editor, make_editor, make_item, make_source, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def trio():
    """A published lead from the heaviest source and two drafts of the same story."""
    lead = make_item(source=make_source(weight=90), title="Introducing Claude Opus 4.5")
    drafts = [
        make_item(
            source=make_source(weight=50), title="Anthropic 发布 Claude Opus 4.5", status="draft"
        ),
        make_item(source=make_source(weight=40), title="Claude Opus 4.5 is out", status="draft"),
    ]
    for item in [lead, *drafts]:
        item_match(item=item)
    return lead, drafts


def _members(story_id: int) -> list[str]:
    return list(
        StoryItem.objects.filter(story_id=story_id)
        .order_by("rank")
        .values_list("item__title", flat=True)
    )


def test_an_editor_makes_a_draft_the_lead_and_it_stays_the_lead(trio):
    _lead, drafts = trio
    story = story_make_lead(item=drafts[1], by=make_editor())

    assert _members(story.pk) == [
        "Claude Opus 4.5 is out",
        "Introducing Claude Opus 4.5",
        "Anthropic 发布 Claude Opus 4.5",
    ]
    assert ItemLogEntry.objects.filter(item=drafts[1], action="edit").count() == 1


def test_split_takes_an_item_into_a_story_of_its_own(trio):
    lead, drafts = trio
    old = lead.story_link.story_id

    story = story_split(item=drafts[0], by=make_editor())

    assert _members(story.pk) == ["Anthropic 发布 Claude Opus 4.5"]
    assert _members(old) == ["Introducing Claude Opus 4.5", "Claude Opus 4.5 is out"]
    assert StoryItem.objects.get(item=drafts[0]).kept_apart
    # The matcher never puts it back.
    assert item_match(item=drafts[0]).story_id == story.pk


def test_merge_puts_an_item_and_its_story_into_another(trio):
    lead, _drafts = trio
    stray = make_item(title="A different headline entirely", source=make_source(weight=10))

    story = story_merge(item=stray, into=lead, by=make_editor())

    assert _members(story.pk)[-1] == "A different headline entirely"
    assert Story.objects.get(pk=story.pk).source_count == 4


def test_reject_duplicates_rejects_the_storys_other_drafts_through_the_workflow(trio):
    lead, drafts = trio

    rejected = story_reject_duplicates(item=lead, by=make_chief_editor())

    assert sorted(item.pk for item in rejected) == sorted(d.pk for d in drafts)
    assert set(
        Item.objects.filter(pk__in=[d.pk for d in drafts]).values_list("status", flat=True)
    ) == {"rejected"}
    notes = set(ItemLogEntry.objects.filter(action="reject").values_list("note", flat=True))
    assert notes == {f"与“Introducing Claude Opus 4.5”（#{lead.pk}）重复。"}
    # Each keeps its link to the lead.
    assert all(StoryItem.objects.get(item=d).story.lead_id == lead.pk for d in drafts)


def test_an_editor_without_the_right_to_reject_changes_nothing(trio):
    lead, drafts = trio

    with pytest.raises(NotPermitted):
        story_reject_duplicates(item=lead, by=make_editor())

    assert set(
        Item.objects.filter(pk__in=[d.pk for d in drafts]).values_list("status", flat=True)
    ) == {"draft"}
    assert not ItemLogEntry.objects.filter(action="reject").exists()


def test_a_user_who_may_not_change_items_may_not_change_stories(trio):
    lead, drafts = trio
    before = _members(lead.story_link.story_id)

    for action in (story_make_lead, story_split):
        with pytest.raises(NotPermitted):
            action(item=drafts[0], by=make_user())

    assert _members(lead.story_link.story_id) == before


def test_an_item_in_no_story_cannot_be_split(trio):
    with pytest.raises(StoryActionError):
        story_split(item=make_item(), by=make_editor())


def test_the_review_queue_shows_each_drafts_story_and_its_siblings_statuses(client, trio):
    lead, _drafts = trio
    client.force_login(make_chief_editor())

    html = client.get("/admin/feed/item/?status=draft").text

    columns = re.findall(r'<td class="field-story">(.*?)</td>', html, re.S)
    assert len(columns) == 2
    lead_row = f"<li>{lead.source.name}: Introducing Claude Opus 4.5 (已发布)</li>"
    assert all(lead_row in column for column in columns)
    assert all("属于“Introducing Claude Opus 4.5”的报道" in column for column in columns)


def test_the_queue_action_rejects_duplicates_in_one_step(client, trio):
    lead, _drafts = trio
    client.force_login(make_chief_editor())

    response = client.post(
        "/admin/feed/item/?status=all",
        {"action": "reject_duplicates", "_selected_action": [lead.pk]},
        follow=True,
    )

    assert response.status_code == 200
    assert Item.objects.filter(status="rejected").count() == 2
