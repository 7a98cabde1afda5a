"""The public site in real Chromium: filters, chips, tabs, languages, an item, its original."""

import datetime
import http.server
import re
import threading

import pytest

from feed.models import Item
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db(transaction=True)

ORIGINAL_PAGE = b"<!doctype html><title>The original</title><h1>The original article</h1>"


class _OriginalHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(ORIGINAL_PAGE)

    def log_message(self, *args):
        pass


@pytest.fixture
def original_site():
    """A real HTTP server on 127.0.0.1 standing in for the publisher of an original."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _OriginalHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def at(day: int, hour: int, minute: int = 0) -> datetime.datetime:
    return datetime.datetime(2026, 6, day, hour, minute, tzinfo=SHANGHAI)


@pytest.fixture
def desk(clock, original_site):
    arxiv = make_source(name="arXiv cs.LG", slug="arxiv-cs-lg", kind="paper")
    lumen = make_source(name="Lumen Lab 博客", slug="lumen-lab", kind="blog")
    mira = make_source(name="Mira Okafor", slug="mira", kind="tweet", handle="@miraokafor")
    tide = make_source(name="潮汐科技日报", slug="tidewater", kind="news")
    items = {
        "ring": make_item(
            source=arxiv,
            title="用稀疏差分同步把异步强化学习的带宽降到百分之一",
            url=f"{original_site}/papers/ring",
            authors="Lin Qiao, Tomás Ferreira",
            category="paper",
            status="featured",
            heat=86,
            tags=["分布式训练", "强化学习"],
            summary="相邻两步之间绝大多数参数不变，只传输变化的部分即可。",
            recommendation="在跨机房做 RL 训练、被带宽卡住的团队可以直接借鉴。",
            published_at=at(20, 9, 50),
        ),
        "lumen": make_item(
            source=lumen,
            title="Lumen-3 发布：长上下文推理成本下降四成",
            category="model",
            status="featured",
            heat=92,
            tags=["大模型", "推理"],
            summary="第三代基础模型采用分组注意力与动态缓存淘汰。",
            recommendation="需要处理整本手册的应用值得重新评估成本。",
            published_at=at(20, 8, 5),
        ),
        "tip": make_item(
            source=mira,
            title="一个让 8B 模型在单卡上微调的小技巧",
            category="tip",
            heat=64,
            tags=["微调", "分布式训练"],
            summary="把优化器状态放到 CPU，显存占用减半。",
            recommendation="手头只有一张卡的开发者马上能用。",
            published_at=at(19, 22, 8),
        ),
        "news": make_item(
            source=tide,
            title="三家云厂商同日下调推理价格",
            category="industry",
            heat=55,
            tags=["推理", "价格"],
            summary="价格战蔓延到长上下文档位。",
            recommendation="做成本预算的团队需要重新算一遍。",
            published_at=at(18, 14, 30),
        ),
    }
    make_item(title="一篇还没审核的草稿", status="draft", tags=["分布式训练"])
    return items


def titles(page) -> list[str]:
    return page.locator("h3.item-title").all_inner_texts()


def test_a_reader_filters_switches_language_opens_an_item_and_its_original(
    live_server, page, artifacts, desk
):
    page.goto(live_server.url)
    assert titles(page) == [item.title for item in desk.values()]
    assert page.locator("h2.day-heading").all_inner_texts() == ["6月20日", "6月19日", "6月18日"]
    assert "一篇还没审核的草稿" not in page.content()
    page.screenshot(path=artifacts / "stream-1280.png", full_page=True)

    # A tag on a card: only its items, and a chip.
    page.locator(f"#item-{desk['ring'].pk}").get_by_role("link", name="分布式训练").click()
    page.wait_for_url(re.compile(r"\?tag="))
    assert titles(page) == [desk["ring"].title, desk["tip"].title]
    chip = page.locator(".chip")
    assert chip.inner_text().startswith("标签：分布式训练")
    page.screenshot(path=artifacts / "stream-tag-chip-1280.png", full_page=False)

    # Remove the chip: everything is back.
    chip.get_by_role("link", name="移除筛选条件：分布式训练").click()
    page.wait_for_url(live_server.url + "/")
    assert page.locator(".chip").count() == 0
    assert len(titles(page)) == 4

    # A kind tab.
    page.get_by_role("navigation", name="类型").get_by_role("link", name="论文").click()
    page.wait_for_url("**/?kind=paper")
    assert titles(page) == [desk["ring"].title]
    assert (
        page.get_by_role("navigation", name="类型").locator("[aria-current=page]").inner_text()
        == "论文"
    )

    # English and back, keeping the filter.
    page.get_by_role("link", name="English").click()
    page.wait_for_url("**/en/?kind=paper")
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.locator("h1").inner_text() == "All AI updates"
    assert (
        page.get_by_role("navigation", name="Kind").locator("[aria-current=page]").inner_text()
        == "Papers"
    )
    assert titles(page) == [desk["ring"].title]
    page.screenshot(path=artifacts / "stream-english-1280.png", full_page=False)
    page.get_by_role("link", name="简体中文").click()
    page.wait_for_url(live_server.url + "/?kind=paper")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert page.locator("h1").inner_text() == "全部 AI 动态"

    # Open the item, then its original: the click is counted.
    page.get_by_role("link", name=desk["ring"].title).click()
    page.wait_for_url("**/items/**")
    assert page.locator("h1").inner_text() == desk["ring"].title
    page.screenshot(path=artifacts / "item-1280.png", full_page=True)
    page.get_by_role("link", name="阅读原文").click()
    page.wait_for_url("**/papers/ring")
    assert page.locator("h1").inner_text() == "The original article"
    assert Item.objects.get(pk=desk["ring"].pk).clicks == 1


def test_the_stream_fits_a_phone_screen(live_server, chromium, artifacts, desk):
    context = chromium.new_context(viewport={"width": 375, "height": 812}, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(live_server.url + "/?tag=分布式训练")

        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        for locator in (
            page.locator(".tabs a").first,
            page.locator(".chip-remove"),
            page.locator(".search button"),
        ):
            box = locator.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 375
        page.screenshot(path=artifacts / "stream-375.png", full_page=True)
        page.goto(live_server.url + desk["ring"].get_absolute_url())
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
        page.screenshot(path=artifacts / "item-375.png", full_page=True)
    finally:
        context.close()


def test_on_a_phone_the_filters_come_first_folded_and_open_without_script(
    live_server, chromium, desk
):
    context = chromium.new_context(
        viewport={"width": 375, "height": 812}, locale="zh-CN", java_script_enabled=False
    )
    page = context.new_page()
    try:
        page.goto(live_server.url + "/")
        fold = page.locator("details.filters-fold")
        summary = fold.locator("summary")
        first_card = page.locator("article.item").first

        assert summary.is_visible() and summary.inner_text() == "筛选"
        assert not page.get_by_role("navigation", name="类型").is_visible()
        assert summary.bounding_box()["y"] < first_card.bounding_box()["y"]
        summary.click()
        assert page.get_by_role("navigation", name="类型").is_visible()
        # With a filter on, the fold opens by itself and names how many.
        page.goto(live_server.url + "/?tag=分布式训练")
        assert fold.get_attribute("open") is not None
        assert summary.inner_text() == "筛选 (1)"
    finally:
        context.close()


def test_on_a_wide_screen_the_filters_are_simply_shown(live_server, page, desk):
    page.goto(live_server.url + "/")

    assert not page.locator("details.filters-fold summary").is_visible()
    assert page.get_by_role("navigation", name="类型").is_visible()


def test_the_site_works_with_javascript_off(live_server, chromium, desk):
    context = chromium.new_context(java_script_enabled=False, locale="zh-CN")
    page = context.new_page()
    try:
        page.goto(live_server.url + "/?kind=paper")
        page.get_by_role("searchbox").fill("带宽")
        page.get_by_role("button", name="搜索").click()
        page.wait_for_url(re.compile(r"q=%E5%B8%A6%E5%AE%BD"))
        assert "kind=paper" in page.url
        assert titles(page) == [desk["ring"].title]

        page.get_by_role("link", name="English").click()
        page.wait_for_url(re.compile(r"/en/\?.*q=%E5%B8%A6%E5%AE%BD"))
        assert page.locator("html").get_attribute("lang") == "en"
        assert page.locator(".chip").inner_text().startswith("Search:带宽")

        page.get_by_role("link", name="Featured only").click()
        assert "featured=1" in page.url
        assert titles(page) == [desk["ring"].title]
    finally:
        context.close()


def test_keyboard_focus_is_visible(live_server, page, desk):
    page.goto(live_server.url)

    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    assert skip.evaluate("el => el === document.activeElement")
    assert skip.is_visible()
    for _ in range(3):
        page.keyboard.press("Tab")
    outline = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return [s.outlineStyle, s.outlineWidth, s.outlineColor]; }"
    )
    assert outline[0] == "solid" and outline[1] == "3px"


CONTRAST_SCRIPT = """
(selector) => {
  const parse = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const el = document.querySelector(selector);
  if (!el) return null;
  let bg = el, color = parse(getComputedStyle(el).color);
  while (bg) {
    const c = parse(getComputedStyle(bg).backgroundColor);
    if (c.length < 4 || c[3] > 0) { color.bg = c; break; }
    bg = bg.parentElement;
  }
  const back = color.bg || [255, 255, 255];
  const [a, b] = [lum(color), lum(back)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}
"""


STREAM_TEXT = [
    "body",
    ".lede",
    ".item-meta",
    ".item-meta time",
    ".item-source",
    ".badge",
    ".heat",
    ".item-summary",
    ".item-why",
    ".tags a",
    ".tag--category a",
    ".tabs a[aria-current=page]",
    ".tabs--category a",
    ".toggle",
    ".facet-count",
    ".language-current",
    ".language-switch a",
    ".site-footer",
    ".item-original",
    ".search input",
]
ITEM_TEXT = [".breadcrumbs", ".facts dt", ".facts dd", ".button", ".related .muted"]


def test_text_has_sufficient_contrast(live_server, page, desk):
    low = {}
    for url, selectors in [
        (live_server.url + "/?tag=分布式训练", [*STREAM_TEXT, ".chip", ".chip-remove"]),
        (live_server.url + desk["ring"].get_absolute_url(), ITEM_TEXT),
    ]:
        page.goto(url)
        for selector in selectors:
            ratio = page.evaluate(CONTRAST_SCRIPT, selector)
            assert ratio is not None, f"{selector} is not on {url}"
            if ratio < 4.5:
                low[selector] = round(ratio, 2)

    assert low == {}, "WCAG AA needs 4.5:1 for text"
