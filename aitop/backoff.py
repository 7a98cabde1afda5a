"""The one backoff rule: how long to wait after the n-th failed try of anything.

Fetching a feed, delivering a webhook and calling a chat-completions server
each retry with it; they differ only in their numbers (the base, the factor,
the cap: settings and constants next to each caller) and in whether they add
jitter, which the fetcher does to spread sources that failed together.
"""

# Past this the wait is the cap anyway; it keeps the power a small number.
_MAX_EXPONENT = 32


def backoff_seconds(*, tries: int, base: float, cap: float, factor: float = 2) -> float:
    """`base * factor**(tries - 1)` seconds after `tries` failures in a row, at most `cap`."""
    exponent = min(max(tries, 1) - 1, _MAX_EXPONENT)
    return min(cap, base * factor**exponent)
