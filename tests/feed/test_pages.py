"""The context builders others render the public templates with (the editors' preview)."""

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.utils import translation

from feed.pages import stream_context
from feed.paging import group_by_day
from tests.factories import make_item

pytestmark = pytest.mark.django_db


def test_a_draft_renders_in_the_stream_template_as_readers_would_see_it(clock):
    draft = make_item(
        title="Draft for preview", status="draft", summary="Not out yet.", tags=["量化"], heat=71
    )
    request = RequestFactory().get("/admin/preview/")

    with translation.override("zh-hans"):
        context = stream_context(request=request, days=group_by_day([draft]))
        html = render_to_string("feed/stream.html", context, request=request)

    # A draft has no publish time yet: it sits on today.
    assert '<a href="/days/2026-06-20/">6月20日</a>' in html
    assert f'<a href="/items/{draft.pk}/draft-for-preview/">Draft for preview</a>' in html
    assert "Not out yet." in html
    assert "71°" in html
