"""Chinese by default, English by choice; the switch keeps the filters; every string translated."""

import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

LOCALE = Path(settings.BASE_DIR) / "locale"


def tab_labels(html: str, label: str) -> list[str]:
    nav = re.search(rf'<nav class="tabs[^"]*" aria-label="{label}">(.*?)</nav>', html, re.S)
    return re.findall(r">([^<>]+)</a>", nav.group(1))


@pytest.fixture
def story(clock):
    return make_item(
        title="Lumen-3",
        source=make_source(name="Lumen Lab", kind="blog"),
        category="model",
        status="featured",
        recommendation="Read it.",
    )


def test_the_site_speaks_chinese_by_default(client, story):
    html = client.get("/").text

    assert '<html lang="zh-hans">' in html
    assert tab_labels(html, "类型") == ["全部", "博客", "资讯", "推文", "论文"]
    assert tab_labels(html, "分类") == ["全部", "模型", "产品", "行业", "论文", "技巧"]
    assert ">AI模型</a>" in html
    assert '<span class="badge">精选</span>' in html
    assert "推荐理由：" in html


def test_english_lives_under_en(client, story):
    html = client.get("/en/").text

    assert '<html lang="en">' in html
    assert tab_labels(html, "Kind") == ["All", "Blogs", "News", "Tweets", "Papers"]
    assert tab_labels(html, "Category") == [
        "All",
        "Models",
        "Products",
        "Industry",
        "Papers",
        "Tips",
    ]
    assert ">AI models</a>" in html
    assert '<span class="badge">Featured</span>' in html
    assert "Why it matters:" in html
    assert "June 20" in html


def language_links(html: str) -> dict[str, str]:
    nav = re.search(r'<nav class="language-switch"[^>]*>(.*?)</nav>', html, re.S).group(1)
    return {
        code: unescape(href) for href, code in re.findall(r'<a href="([^"]+)" lang="([^"]+)"', nav)
    }


def test_the_language_links_keep_the_page_and_its_filters(client, story):
    url = "/?kind=blog&tag=%E9%87%8F%E5%8C%96&q=lumen&before=2026-06-21"
    chinese = client.get(url).text

    assert language_links(chinese) == {"en": unescape("/en" + url)}
    english = client.get("/en" + url).text
    assert '<html lang="en">' in english
    assert language_links(english) == {"zh-hans": unescape(url)}
    escaped = url.replace("&", "&amp;")
    assert f'<link rel="alternate" hreflang="en" href="http://testserver/en{escaped}">' in chinese
    assert '<link rel="alternate" hreflang="zh-hans" href="http://testserver/?' in english


def test_the_url_alone_decides_not_the_browser_language(client, story):
    response = client.get("/", headers={"accept-language": "en"})

    assert '<html lang="zh-hans">' in response.text
    assert "Accept-Language" not in response.get("Vary", "")


def test_the_old_switch_still_works_and_lands_on_the_prefixed_page(story):
    # As a browser would post it: with the CSRF cookie and its token (public
    # pages set no cookie, the login page does).
    client = Client(enforce_csrf_checks=True)
    token = client.get("/admin/login/").cookies["csrftoken"].value
    url = "/?kind=blog&tag=%E9%87%8F%E5%8C%96"

    response = client.post(
        "/i18n/setlang/",
        {"language": "en", "next": unescape(url), "csrfmiddlewaretoken": token},
    )

    assert response.status_code == 302
    assert unescape(response["Location"]) == unescape("/en" + url)
    assert '<html lang="en">' in client.get(response["Location"]).text
    back = client.post(
        "/i18n/setlang/",
        {"language": "zh-hans", "next": "/en/sources/", "csrfmiddlewaretoken": token},
    )
    assert back["Location"] == "/sources/"
    assert '<html lang="zh-hans">' in client.get(back["Location"]).text


def test_an_old_language_cookie_is_redirected_to_its_prefix(client, story):
    client.cookies["django_language"] = "en"

    response = client.get("/tags/?x=1")

    assert response.status_code == 302
    assert response["Location"] == "/en/tags/?x=1"
    assert "Cookie" in response["Vary"] and "private" in response["Cache-Control"]
    # Following the site's own link to Chinese is a choice: no redirect back.
    followed = client.get("/tags/", headers={"referer": "http://testserver/en/tags/"})
    assert followed.status_code == 200
    assert '<html lang="zh-hans">' in followed.text


def test_the_item_page_and_dates_are_translated(client, story):
    chinese = client.get(story.get_absolute_url()).text
    english = client.get("/en" + story.get_absolute_url()).text

    assert "2026年6月20日 11:00" in chinese and "阅读原文" in chinese
    assert "June 20, 2026, 11:00" in english and "Read the original" in english


def test_every_chinese_string_is_translated_and_the_catalogues_compile(tmp_path):
    msgfmt = shutil.which("msgfmt")
    assert msgfmt, "GNU gettext's msgfmt is needed (apt-get install gettext)"
    for language in ("zh_Hans", "en"):
        result = subprocess.run(  # noqa: S603 - our own files, a fixed program
            [
                msgfmt,
                "--check",
                "--statistics",
                "-o",
                str(tmp_path / f"{language}.mo"),
                str(LOCALE / language / "LC_MESSAGES" / "django.po"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        if language == "zh_Hans":
            assert re.search(r"^\d+ translated messages\.$", result.stderr, re.M), result.stderr
