"""Content-Security-Policy in real Chromium: no page of ours breaks it, and it is strict."""

import re

import pytest

from tests.factories import make_chief_editor, make_item, make_source

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-browser-password"


def _violations(page) -> list[str]:
    """Collect what Chromium reports as refused by the page's policy."""
    found: list[str] = []
    page.on(
        "console",
        lambda message: (
            found.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    return found


def _visit(page, url: str, ready: str) -> str:
    response = page.goto(url)
    page.locator(ready).first.wait_for()
    page.wait_for_load_state("networkidle")
    return response.headers["content-security-policy"]


def test_public_pages_admin_and_api_docs_run_without_a_csp_violation(live_server, english_page):
    page = english_page
    source = make_source(name="Lumen Lab")
    item = make_item(title="Lumen-4 report", source=source, tags=["推理"], body="<p>Body</p>")
    draft = make_item(title="A draft", status="draft", source=source)
    make_chief_editor(username="zhou", password=PASSWORD)
    violations = _violations(page)
    policies = []

    policies.append(_visit(page, f"{live_server.url}/", "text=Lumen-4 report"))
    policies.append(_visit(page, f"{live_server.url}{item.get_absolute_url()}", "h1"))
    page.goto(f"{live_server.url}/admin/login/?next=/admin/feed/item/")
    page.fill("#id_username", "zhou")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/feed/item/**")
    page.wait_for_load_state("networkidle")
    policies.append(
        _visit(page, f"{live_server.url}/admin/feed/item/?status=draft", "#result_list")
    )
    policies.append(
        _visit(page, f"{live_server.url}/admin/feed/item/{draft.pk}/change/", "#item_form")
    )
    page.locator(".field-tags .select2-selection").click()
    policies.append(_visit(page, f"{live_server.url}/api/docs/", ".opblock-summary"))
    policies.append(_visit(page, f"{live_server.url}/api/redoc/", "h2"))

    # The one refusal: Redoc's bundle shows its vendor's logo from a CDN, which
    # the docs' own policy keeps out on purpose (they load nothing from outside).
    assert [v for v in violations if "https://cdn.redoc.ly/redoc/logo-mini.svg" not in v] == []
    for policy in policies:
        # Our files, and the nonce when the page has a script that carries it.
        script_src = re.search(r"script-src ([^;]*)", policy).group(1)
        assert re.fullmatch(r"'self'( 'nonce-[\w-]+')?", script_src)


def test_a_script_injected_into_the_page_is_refused(live_server, page):
    """The policy bites: an inline script that no nonce vouches for does not run."""
    make_item(title="Plain item")
    violations = _violations(page)
    page.goto(f"{live_server.url}/")

    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.injected = 1'; document.body.append(s); }"
    )

    assert page.evaluate("() => window.injected") is None
    assert any("script-src" in v for v in violations)
