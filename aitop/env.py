"""Typed readers for configuration that comes from the environment.

Each helper raises ImproperlyConfigured naming the variable, so a typo in a
deployment fails at start-up with a message rather than with a default that
silently does the wrong thing.
"""

import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str | None = None) -> str | None:
    """The variable's value, or `default` when it is unset."""
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    """A yes/no variable: 1/true/yes/on or 0/false/no/off (any case)."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {raw!r}.")


def env_int(name: str, default: int) -> int:
    """A whole-number variable."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}.") from None


def env_float(name: str, default: float) -> float:
    """A number variable (seconds, for example); may have a fraction."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}.") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ImproperlyConfigured(f"{name} must be a finite number, not {raw!r}.")
    return value


def env_number_map(name: str, default: dict[str, float] | None = None) -> dict[str, float]:
    """Comma-separated ``key=number`` pairs, e.g. ``export.arxiv.org=3,rss.arxiv.org=3``."""
    raw = os.environ.get(name)
    if raw is None:
        return dict(default or {})
    result: dict[str, float] = {}
    for part in raw.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        try:
            if not sep or not key.strip():
                raise ValueError
            result[key.strip().lower()] = float(value)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name} must be comma-separated key=number pairs, not {raw!r}."
            ) from None
    return result


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    """A comma-separated variable, blanks dropped."""
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [part.strip() for part in raw.split(",") if part.strip()]


def cache_from_url(name: str, url: str) -> dict:
    """Translate a cache URL into a CACHES entry.

    Understood: ``locmem://`` (per-process memory, the default), ``dummy://``
    (no caching) and ``redis://``/``rediss://`` (Django's own Redis backend,
    shared by every web process, with its clients kept: aitop/redis_cache.py).
    """
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "locmem":
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": parts.netloc or "aitop",
        }
    if scheme == "dummy":
        return {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    if scheme in {"redis", "rediss"}:
        return {"BACKEND": "aitop.redis_cache.ReusingRedisCache", "LOCATION": url}
    raise ImproperlyConfigured(
        f"{name} must start with locmem://, dummy://, redis:// or rediss://, not {url!r}."
    )
