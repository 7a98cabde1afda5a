"""Chinese by default, English by choice; the switch keeps the filters; every string translated."""

import re
import shutil
import subprocess
from html import unescape
from pathlib import Path

import pytest
from django.conf import settings

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


def test_english_is_there_for_those_who_ask(client, story):
    html = client.get("/", headers={"accept-language": "en-GB,en;q=0.9"}).text

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


def test_the_language_switch_keeps_the_current_filters(client, story):
    url = "/?kind=blog&tag=%E9%87%8F%E5%8C%96&q=lumen&before=2026-06-21"
    html = client.get(url).text
    form = html[html.index('<form class="language-switch"') :]
    form = form[: form.index("</form>")]

    assert 'action="/i18n/setlang/"' in form
    assert f'name="next" value="{url.replace("&", "&amp;")}"' in form
    assert '<button type="submit" name="language" value="en" lang="en"' in form

    response = client.post("/i18n/setlang/", {"language": "en", "next": unescape(url)})

    assert response.status_code == 302
    assert response["Location"] == url
    assert '<html lang="en">' in client.get(response["Location"]).text
    back = client.post("/i18n/setlang/", {"language": "zh-hans", "next": url})
    assert '<html lang="zh-hans">' in client.get(back["Location"]).text


def test_the_item_page_and_dates_are_translated(client, story):
    chinese = client.get(story.get_absolute_url()).text
    english = client.get(story.get_absolute_url(), headers={"accept-language": "en"}).text

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
