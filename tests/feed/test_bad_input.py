"""Bad input: a clear 400 naming the parameter, or a harmless 200; never a 500."""

import re
from html import unescape

import pytest

from feed.filters import SEARCH_MAX_LENGTH
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/days/2026-06-19/",
    "/feed.xml",
    "/feed.atom",
    "/feed.json",
    "/tags/",
    "/sources/",
    "/sitemap.xml",
    "/sitemap-items-2026-06.xml",
    "/robots.txt",
]
PARAMETERS = ["kind", "category", "tag", "source", "featured", "q", "since", "until", "before", "p"]
HOSTILE = [
    "",
    " ",
    "%",
    "_",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "9" * 400,
    "x" * 5000,
    "-1",
    "2026-06-19T25:61:00",
    "0000-00-00",
    "9999-12-31",
    "🚀",
    "\ufffd",
    "分布式训练",
]


@pytest.fixture
def story(clock):
    return make_item(title="A story", tags=["分布式训练"], source=make_source(slug="lab"))


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("parameter", PARAMETERS)
@pytest.mark.parametrize("value", HOSTILE)
def test_no_value_of_any_parameter_gives_a_server_error(client, story, page, parameter, value):
    response = client.get(page, {parameter: value})

    assert response.status_code in {200, 400, 404}
    if response.status_code == 400:
        assert f"参数 <code>{parameter}</code>" in response.text


@pytest.mark.parametrize("page", [*PAGES, "/items/1/x/", "/go/1/", "/tags/a/"])
@pytest.mark.parametrize("parameter", ["kind", "q", "tag", "utm_source", "a\x00b"])
def test_a_nul_byte_in_any_parameter_is_a_400(client, story, page, parameter):
    response = client.get(page, {parameter: "x\x00y" if "\x00" not in parameter else "x"})

    assert response.status_code == 400
    assert "不允许包含空字符（NUL）。" in response.text


def test_a_nul_byte_in_the_path_is_a_400(client, story):
    response = client.get(f"/items/{story.pk}/a%00b/")

    assert response.status_code == 400


@pytest.mark.parametrize(
    ("querystring", "parameter", "message"),
    [
        ("kind=podcast", "kind", "选择一个有效的选项"),
        ("featured=maybe", "featured", "选择一个有效的选项"),
        ("before=yesterday", "before", "请按 YYYY-MM-DD 格式填写日期。"),
        ("before=1066-10-14", "before", "日期须在 1900-01-01 与 9998-12-31 之间。"),
        ("since=soon", "since", "请填写 YYYY-MM-DD 格式的日期"),
        ("category=gossip", "category", "选择一个有效的选项"),
    ],
)
def test_a_malformed_value_is_a_400_page_that_names_the_parameter(
    client, story, querystring, parameter, message
):
    response = client.get(f"/?{querystring}")

    assert response.status_code == 400
    assert "地址中有无法识别的参数" in response.text
    assert f"参数 <code>{parameter}</code>：" in response.text
    assert message in response.text
    assert "A story" not in response.text


def test_a_400_names_each_bad_parameter(client, story):
    html = client.get("/?kind=podcast&featured=maybe").text

    assert re.findall(r"参数 <code>(\w+)</code>", html) == ["featured", "kind"]


def test_the_400_page_is_in_english_too(client, story):
    html = client.get("/en/?kind=podcast").text

    assert "Parameter <code>kind</code>:" in html
    assert "Select a valid choice. podcast is not one of the available choices." in html


@pytest.mark.parametrize("querystring", ["tag=nosuchtag", "source=nosuchsource"])
def test_an_unknown_tag_or_source_shows_nothing_with_a_removable_chip(client, story, querystring):
    response = client.get(f"/?{querystring}&kind=blog")

    assert response.status_code == 200
    assert "没有符合条件的内容。" in response.text
    assert "A story" not in response.text
    name = querystring.split("=")[1]
    chip = re.search(
        rf'<li class="chip chip--\w+">[^<]*{name}<a class="chip-remove" href="([^"]+)"',
        response.text,
    )
    assert chip and unescape(chip.group(1)) == "/?kind=blog"


def test_an_over_long_search_is_cut_and_shown_cut(client, story):
    response = client.get("/", {"q": "训练" + "x" * 1000})

    assert response.status_code == 200
    shown = re.search(r'name="q" value="([^"]*)"', response.text).group(1)
    assert shown == ("训练" + "x" * 1000)[:SEARCH_MAX_LENGTH]


def test_too_many_tags_is_a_400(client, story):
    response = client.get("/?" + "&".join(f"tag=t{n}" for n in range(11)))

    assert response.status_code == 400
    assert "最多只能选择 10 个标签。" in response.text


def test_a_repeated_tag_counts_once(client, story):
    response = client.get("/?tag=分布式训练&tag=分布式训练")

    assert response.status_code == 200
    assert response.text.count('<li class="chip chip--tag">') == 1
    assert "A story" in response.text
