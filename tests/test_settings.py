"""Settings come from the environment and fail loudly, naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from aitop.env import cache_from_url

PROJECT = Path(__file__).resolve().parent.parent


def load_settings(**env: str) -> subprocess.CompletedProcess:
    """Import the settings in a fresh interpreter with exactly this environment."""
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}}
    clean.update(env, DJANGO_SETTINGS_MODULE="aitop.settings")
    return subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.DATABASES)"],
        cwd=PROJECT,
        env=clean,
        capture_output=True,
        text=True,
        check=False,
    )


def test_without_debug_a_missing_secret_key_stops_start_up_naming_it():
    result = load_settings()

    assert result.returncode != 0
    assert "ImproperlyConfigured: SECRET_KEY must be set when DEBUG is off" in result.stderr


def test_with_debug_on_a_development_key_is_used():
    assert load_settings(DEBUG="1").returncode == 0


def test_a_malformed_debug_value_names_the_variable():
    result = load_settings(DEBUG="maybe", SECRET_KEY="x")

    assert "DEBUG must be a boolean" in result.stderr


def test_a_database_url_of_an_unsupported_kind_is_refused():
    result = load_settings(SECRET_KEY="x", DATABASE_URL="mysql://root@127.0.0.1/aitop")

    assert "DATABASE_URL must be a sqlite:// or postgres:// URL" in result.stderr


def test_postgres_urls_use_the_psycopg_pool():
    result = load_settings(SECRET_KEY="x", DATABASE_URL="postgres://postgres@127.0.0.1:5432/x")

    assert result.returncode == 0
    assert "'pool': {'min_size': 1, 'max_size': 10, 'timeout': 5.0}" in result.stdout


def test_postgres_queries_start_no_parallel_workers_unless_told():
    url = "postgres://postgres@127.0.0.1:5432/x"
    default = load_settings(SECRET_KEY="x", DATABASE_URL=url)
    told = load_settings(SECRET_KEY="x", DATABASE_URL=url, DATABASE_PARALLEL_WORKERS="2")

    assert "'options': '-c jit=off -c max_parallel_workers_per_gather=0'" in default.stdout
    assert "'options': '-c jit=off -c max_parallel_workers_per_gather=2'" in told.stdout


def test_postgres_connections_may_prepare_our_statements_unless_told_not_to():
    url = "postgres://postgres@127.0.0.1:5432/x"
    default = load_settings(SECRET_KEY="x", DATABASE_URL=url)
    told = load_settings(SECRET_KEY="x", DATABASE_URL=url, DATABASE_PREPARED_STATEMENTS="0")

    assert "'prepare_threshold': 5" in default.stdout
    assert "prepare_threshold" not in told.stdout


def test_an_unknown_time_zone_names_the_variable():
    result = load_settings(SECRET_KEY="x", TIME_ZONE="Mars/Olympus")

    assert "TIME_ZONE must be an IANA zone name" in result.stderr


def test_cache_urls_choose_the_backend():
    assert cache_from_url("CACHE_URL", "redis://127.0.0.1:6379/1") == {
        "BACKEND": "aitop.redis_cache.ReusingRedisCache",
        "LOCATION": "redis://127.0.0.1:6379/1",
    }
    assert cache_from_url("CACHE_URL", "locmem://")["BACKEND"].endswith("LocMemCache")
    with pytest.raises(ImproperlyConfigured, match="CACHE_URL must start with"):
        cache_from_url("CACHE_URL", "memcached://127.0.0.1")


def test_the_site_defaults_to_shanghai_time_and_chinese(settings):
    assert settings.TIME_ZONE == "Asia/Shanghai"
    assert settings.USE_TZ is True
    assert settings.LANGUAGE_CODE == "zh-hans"
    assert [code for code, _ in settings.LANGUAGES] == ["zh-hans", "en"]
