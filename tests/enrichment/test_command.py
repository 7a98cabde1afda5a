"""`manage.py enrich_items`: a progress bar and a summary of what it did."""

import io

import pytest
from django.core.management import CommandError, call_command

from enrichment.models import Enrichment
from feed.models import Item
from tests.factories import make_item

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("enrich_items", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_pending_with_a_limit_enriches_that_many_and_says_what_it_did():
    for n in range(3):
        make_item(
            recommendation="", title=f"Draft {n}", status="draft", summary=f"Text number {n}."
        )
    make_item(recommendation="", title="Live", status="published", summary="Live.")

    out, err = run("--pending", "--limit", "2")

    assert out == (
        "offline: 2 done, 0 skipped, 0 failed, 0 waiting for budget; "
        "tokens 0 in / 0 out; cost $0.000000\n"
    )
    assert "2/2" in err  # the progress bar
    assert Enrichment.objects.filter(state="done").count() == 2


def test_a_second_run_skips_what_is_done():
    make_item(recommendation="", status="draft", summary="Text.")
    run()

    out, _ = run()

    assert out.startswith("offline: 0 done, 1 skipped, 0 failed")
    assert list(Item.objects.filter(status="published")) == []


def test_a_limit_below_one_is_refused():
    with pytest.raises(CommandError, match="--limit must be 1 or more"):
        run("--limit", "0")
