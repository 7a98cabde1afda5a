"""Rates for anonymous and authenticated callers; a forged X-Forwarded-For dodges nothing."""

import copy

import pytest

from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings):
    """Set the API's rates (and proxies) for one test."""

    def set_rates(*, anon="3/min", user="5/min", proxies=0):
        config = copy.deepcopy(settings.REST_FRAMEWORK)
        config["DEFAULT_THROTTLE_RATES"] = {"anon": anon, "user": user}
        config["NUM_PROXIES"] = proxies
        settings.REST_FRAMEWORK = config

    return set_rates


def test_anonymous_caller_over_the_rate_gets_429_with_retry_after(api, rates):
    rates(anon="3/min")

    statuses = [api.get("/api/v1/sources/").status_code for _ in range(4)]
    refused = api.get("/api/v1/sources/")

    assert statuses == [200, 200, 200, 429]
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert refused.json()["code"] == "throttled"


def test_forged_forwarded_for_header_does_not_reset_the_count(api, rates):
    rates(anon="3/min", proxies=0)

    statuses = [
        api.get("/api/v1/sources/", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code
        for n in range(4)
    ]

    assert statuses == [200, 200, 200, 429]


def test_behind_one_proxy_the_address_it_appended_is_the_one_counted(api, rates):
    rates(anon="2/min", proxies=1)

    # The caller forges the first entry; our proxy appends the address it saw.
    forged = [
        api.get("/api/v1/sources/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}, 198.51.100.7").status_code
        for n in range(3)
    ]
    other_client = api.get("/api/v1/sources/", HTTP_X_FORWARDED_FOR="198.51.100.8").status_code

    assert forged == [200, 200, 429]
    assert other_client == 200


def test_authenticated_callers_have_their_own_rate_per_user(api, token_client, rates):
    rates(anon="100/min", user="2/min")
    first, second = token_client(make_user()), token_client(make_user())

    first_statuses = [first.get("/api/v1/sources/").status_code for _ in range(3)]
    second_status = second.get("/api/v1/sources/").status_code

    assert first_statuses == [200, 200, 429]
    assert second_status == 200
    assert api.get("/api/v1/sources/").status_code == 200
