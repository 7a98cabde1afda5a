"""Real Chromium (Debian's package), driven by Playwright, against a live server."""

import os
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("AITOP_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

# Without these, Chromium reaches for Google's services at start-up, which a
# closed network refuses; as root it also needs --no-sandbox.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium():
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


def _page(chromium, *, locale: str):
    context = chromium.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


@pytest.fixture
def page(chromium):
    """A desktop browser tab of a Chinese-speaking reader (the site's default)."""
    yield from _page(chromium, locale="zh-CN")


@pytest.fixture
def english_page(chromium):
    """A tab that asks for English: admin tests read the same whatever the translation."""
    yield from _page(chromium, locale="en-US")


@pytest.fixture
def artifacts() -> Path:
    """Where browser tests leave screenshots for people to look at."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
