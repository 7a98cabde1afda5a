"""Tags keep their Chinese names in slugs and URLs."""

import pytest
from django.urls import reverse
from taggit.models import Tag

from tests.factories import make_item

pytestmark = pytest.mark.django_db


def test_a_chinese_tag_gets_a_slug_of_its_own_characters():
    make_item(tags=["分布式训练"])

    assert Tag.objects.get(name="分布式训练").slug == "分布式训练"


def test_a_chinese_tag_url_resolves_to_its_items(client):
    make_item(title="Pipeline bubbles, measured", tags=["分布式训练"])
    make_item(title="Untagged story")

    url = reverse("feed:tag", kwargs={"slug": "分布式训练"})
    response = client.get(url, follow=True)

    assert url == "/tags/%E5%88%86%E5%B8%83%E5%BC%8F%E8%AE%AD%E7%BB%83/"
    # The old tag address now leads to the stream filtered by the tag.
    assert response.redirect_chain == [("/?tag=%E5%88%86%E5%B8%83%E5%BC%8F%E8%AE%AD%E7%BB%83", 301)]
    assert response.status_code == 200
    assert "Pipeline bubbles, measured" in response.text
    assert "Untagged story" not in response.text


def test_an_unknown_tag_url_shows_that_nothing_matches(client):
    make_item(title="Untagged story")

    response = client.get("/tags/不存在/", follow=True)

    assert response.status_code == 200
    assert "没有符合条件的内容。" in response.text
    assert "Untagged story" not in response.text
