"""Schemathesis fuzzes every operation of /api/schema/, anonymously and with a chief editor's token.

Every answer must be no 5xx, a status the schema lists for that operation,
the content type it lists, and a body that matches the schema (errors too).
Runs in-process through the WSGI application, inside the test's transaction,
with a fixed seed so CI is repeatable.
"""

import copy

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.factories import make_item, make_source, make_user

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _load_schema():
    """The schema as the app serves it; generating it reads no data."""
    from django.core.wsgi import get_wsgi_application

    return schemathesis.openapi.from_wsgi(
        "/api/schema/",
        get_wsgi_application(),
        headers={"Accept": "application/vnd.oai.openapi+json"},
    )


schema = _load_schema()


@pytest.fixture(autouse=True)
def fuzz_data(db, settings):
    """Data for the fuzzer to find, and rates high enough to let it run."""
    config = copy.deepcopy(settings.REST_FRAMEWORK)
    config["DEFAULT_THROTTLE_RATES"] = {"anon": "100000/min", "user": "100000/min"}
    settings.REST_FRAMEWORK = config
    source = make_source(slug="lab", name="Lab")
    make_source(slug="论文", name="论文", kind="paper")
    # The source the schema's submission example names, so that example creates a draft.
    make_source(slug="arxiv-cs-lg", name="arXiv cs.LG", kind="paper")
    for n in range(3):
        make_item(source=source, title=f"Published {n}", tags=["大模型", "agents"], heat=10 * n)
    make_item(source=source, title="A draft", status="draft")
    # Django's test client does the same: a request's start and end must not
    # close the connection that holds the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@FUZZ
def test_api_answers_anonymous_callers_as_its_schema_says(case):
    # Anonymous answers come gzipped to a client that accepts gzip (requests' default
    # headers say so), and the WSGI transport does not decode them: ask for them plain.
    case.call_and_validate(
        checks=CHECKS, headers={"Accept-Language": "en", "Accept-Encoding": "identity"}
    )


@pytest.fixture
def chief_token(db):
    from api.tokens import token_create

    chief = make_user(
        perms=[
            "feed.view_item",
            "feed.add_item",
            "feed.change_item",
            "feed.publish_item",
            "feed.feature_item",
            "feed.unfeature_item",
            "feed.reject_item",
            "feed.restore_item",
            "feed.view_source",
            "feed.add_source",
            "feed.change_source",
            "feed.delete_source",
        ]
    )
    return token_create(user=chief, name="schemathesis")[1]


@schema.parametrize()
@FUZZ
def test_api_answers_a_chief_editor_as_its_schema_says(case, chief_token):
    case.call_and_validate(
        checks=CHECKS, headers={"Authorization": f"Token {chief_token}", "Accept-Language": "en"}
    )
