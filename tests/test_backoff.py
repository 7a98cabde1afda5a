"""The one backoff rule that fetching, webhooks and the chat backend share."""

from aitop.backoff import backoff_seconds


def test_the_wait_grows_by_the_factor_from_the_base_up_to_the_cap():
    waits = [backoff_seconds(tries=n, base=30, cap=2000, factor=4) for n in range(0, 6)]

    assert waits == [30, 30, 120, 480, 1920, 2000]


def test_a_long_run_of_failures_waits_the_cap():
    assert backoff_seconds(tries=10_000, base=300.0, cap=86400.0) == 86400.0
