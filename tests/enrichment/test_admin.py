"""The editors' side: queue actions, the drafts beside the fields, today's spend."""

import re

import pytest

from enrichment.models import Enrichment, FieldDraft
from feed.models import Item
from tests.enrichment.conftest import GOOD
from tests.factories import make_editor, make_item, make_source

pytestmark = pytest.mark.django_db

QUEUE = "/admin/feed/item/"
EN = {"accept-language": "en"}


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def act(client, action: str, items: list[Item]):
    data = {"action": action, "_selected_action": [i.pk for i in items], "index": 0}
    return client.post(f"{QUEUE}?status=all", data, headers=EN, follow=True)


@pytest.fixture
def chat_settings(settings, chat, ai_settings):
    """The HTTP backend from the settings, as a deployment configures it."""
    settings.AITOP_AI_BACKEND = "chat"
    settings.AITOP_AI_BASE_URL = chat.url
    settings.AITOP_AI_MODEL = "test-model"
    settings.AITOP_AI_TIMEOUT = 2.0
    settings.AITOP_AI_MAX_RETRIES = 0
    return settings


def test_an_editor_enriches_selected_drafts_and_live_items_are_left_alone(
    client, chat, chat_settings
):
    draft = make_item(recommendation="", title="A draft", status="draft", summary="Feed text.")
    live = make_item(recommendation="", title="Live", status="published", summary="Live text.")
    chat.answer(GOOD, tokens_in=100, tokens_out=50)
    client.force_login(make_editor())

    response = act(client, "enrich_selected", [draft, live])

    assert messages_of(response) == ["AI drafts: 1 done, 0 skipped, 0 failed, 0 waiting."]
    draft.refresh_from_db()
    live.refresh_from_db()
    assert draft.summary == GOOD["summary"]
    assert draft.status == "draft"
    assert live.summary == "Live text."
    assert len(chat.requests) == 1


def test_regenerate_rewrites_a_field_the_editor_changed(client, chat, chat_settings):
    item = make_item(recommendation="", title="A draft", status="draft", summary="Feed text.")
    chat.answer(GOOD)
    client.force_login(make_editor())
    act(client, "enrich_selected", [item])
    Item.objects.filter(pk=item.pk).update(summary="编辑的摘要。")
    chat.answer(GOOD | {"summary": "重新生成的摘要。"})

    again = act(client, "enrich_selected", [item])
    assert messages_of(again) == ["AI drafts: 0 done, 1 skipped, 0 failed, 0 waiting."]
    regenerated = act(client, "regenerate_selected", [item])

    assert messages_of(regenerated) == ["AI drafts: 1 done, 0 skipped, 0 failed, 0 waiting."]
    item.refresh_from_db()
    assert item.summary == "重新生成的摘要。"
    assert item.enrichment_runs.order_by("-id").first().requested_by.is_staff


def test_the_item_form_shows_the_draft_the_final_text_a_diff_and_the_provenance(
    client, chat, chat_settings
):
    item = make_item(
        recommendation="", title="Original title", status="draft", summary="Feed text."
    )
    chat.answer(GOOD, tokens_in=1200, tokens_out=300)
    client.force_login(make_editor())
    act(client, "enrich_selected", [item])
    Item.objects.filter(pk=item.pk).update(summary=GOOD["summary"] + "编辑补充。")

    html = client.get(f"{QUEUE}{item.pk}/change/", headers=EN).text

    assert 'value="示例实验室开源青松-7B 大模型"' in html  # the headline, editable
    assert "Original title" in html
    assert "<ins>编辑补充。</ins>" in html
    row = re.search(r"<th scope='row'>summary</th>(.*?)</tr>", html, re.S).group(1)
    assert "chat test-model enrich-v1" in row
    assert "1200 / 300" in row
    assert "$0.004800" in row


def test_an_editor_corrects_the_headline_in_the_item_form(client, chat, chat_settings):
    item = make_item(
        recommendation="", title="Original title", status="draft", summary="Feed text."
    )
    chat.answer(GOOD)
    editor = make_editor()
    client.force_login(editor)
    act(client, "enrich_selected", [item])
    form = client.get(f"{QUEUE}{item.pk}/change/").context["adminform"].form
    data = {
        **{k: v for k, v in form.initial.items() if v is not None and k != "tags"},
        "tags": ", ".join(item.tags.names()),
        "source": item.source_id,
        "expected_version": Item.objects.get(pk=item.pk).version,
        "enrichment-TOTAL_FORMS": 1,
        "enrichment-INITIAL_FORMS": 1,
        "enrichment-MIN_NUM_FORMS": 0,
        "enrichment-MAX_NUM_FORMS": 1,
        "enrichment-0-item": item.pk,
        "enrichment-0-headline": "编辑改过的标题",
        "log_entries-TOTAL_FORMS": 0,
        "log_entries-INITIAL_FORMS": 0,
    }
    data.pop("id", None)

    response = client.post(f"{QUEUE}{item.pk}/change/", data)

    assert response.status_code == 302
    assert Enrichment.objects.get(item=item).headline == "编辑改过的标题"
    assert FieldDraft.objects.get(item=item, field="headline").value == GOOD["headline"]


def test_the_queue_filters_by_ai_state(client, chat, chat_settings):
    done = make_item(recommendation="", title="Enriched", status="draft", summary="x")
    make_item(recommendation="", title="Not yet", status="draft", summary="y", source=make_source())
    chat.answer(GOOD)
    client.force_login(make_editor())
    act(client, "enrich_selected", [done])

    html = client.get(QUEUE, {"ai": "none"}).text

    assert re.findall(r'<th class="field-title"><a href="[^"]+">([^<]+)</a>', html) == ["Not yet"]


def test_the_dashboard_shows_todays_spend_against_the_budget(client, chat, chat_settings):
    chat_settings.AITOP_AI_DAILY_TOKEN_BUDGET = 10_000
    item = make_item(recommendation="", status="draft", summary="x")
    chat.answer(GOOD, tokens_in=2000, tokens_out=500)
    client.force_login(make_editor())
    act(client, "enrich_selected", [item])

    english = client.get("/admin/", headers=EN).text
    chinese = client.get("/admin/").text

    assert "AI drafts today" in english
    assert "2500 of 10000 tokens (25%)" in english
    assert "1 call" in english
    assert "$0.0080 estimated" in english
    assert "今日 AI 草稿" in chinese
