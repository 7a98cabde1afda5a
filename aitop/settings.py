"""AITOP settings: one file, every deployment difference read from the environment.

Development and production differ only by environment variables; README.md
lists them. Helpers in aitop.env fail loudly, naming the variable.
"""

import zoneinfo
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from aitop.env import (
    cache_from_url,
    env_bool,
    env_float,
    env_int,
    env_list,
    env_number_map,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)

SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is off: export SECRET_KEY to a long random "
            "string (python -c 'import secrets; print(secrets.token_urlsafe(50))')."
        )
    # Development only: a fixed key so sessions survive a restart of `make run`.
    SECRET_KEY = "django-insecure-aitop-development-only"  # noqa: S105

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# Behind a TLS-terminating proxy (the production layout in README.md).
if env_bool("BEHIND_HTTPS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Lets `runserver` serve static files the way whitenoise does in production.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "taggit",
    "django_tasks_db",
    "feed",
    "editorial",
    "stories",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "api",
    "webhooks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "aitop.urls"
WSGI_APPLICATION = "aitop.wsgi.application"
ASGI_APPLICATION = "aitop.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


# Database: SQLite in the project folder unless DATABASE_URL says otherwise.
def _database(url: str) -> dict:
    try:
        config = dj_database_url.parse(url, conn_health_checks=True)
    except ValueError as error:
        raise ImproperlyConfigured(f"DATABASE_URL is not usable: {error}") from None
    engine = config["ENGINE"]
    if engine == "django.db.backends.sqlite3":
        config["OPTIONS"] = {
            # BEGIN IMMEDIATE takes the write lock up front, so a worker and the
            # web process queue for it instead of failing with "database is locked".
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    elif engine == "django.db.backends.postgresql":
        if env_bool("DATABASE_POOL", True):
            # Django's psycopg 3 pool; persistent connections must then be off.
            config["CONN_MAX_AGE"] = 0
            config.setdefault("OPTIONS", {})["pool"] = {
                "min_size": env_int("DATABASE_POOL_MIN", 1),
                "max_size": env_int("DATABASE_POOL_MAX", 10),
            }
    else:
        raise ImproperlyConfigured(
            f"DATABASE_URL must be a sqlite:// or postgres:// URL, not one for {engine}."
        )
    return config


DATABASES = {
    "default": _database(env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

CACHES = {"default": cache_from_url("CACHE_URL", env_str("CACHE_URL") or "locmem://aitop")}

# Background work: Django's tasks framework. The database backend (a queue in
# our own database, drained by `manage.py db_worker`) unless TASKS_BACKEND says
# "immediate" (run on enqueue: the tests) or "dummy" (record, never run).
_TASK_BACKENDS = {
    "database": "django_tasks_db.DatabaseBackend",
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
    "dummy": "django.tasks.backends.dummy.DummyBackend",
}
_task_backend = env_str("TASKS_BACKEND", "database")
if _task_backend not in _TASK_BACKENDS:
    raise ImproperlyConfigured(
        f"TASKS_BACKEND must be one of {', '.join(_TASK_BACKENDS)}, not {_task_backend!r}."
    )
TASKS = {
    "default": {
        "BACKEND": _TASK_BACKENDS[_task_backend],
        "QUEUES": ["default"],
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Languages: Chinese first, English by choice.
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", _("Simplified Chinese")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True

TIME_ZONE = env_str("TIME_ZONE", "Asia/Shanghai")
try:
    zoneinfo.ZoneInfo(TIME_ZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfigured(
        f"TIME_ZONE must be an IANA zone name such as Asia/Shanghai, not {TIME_ZONE!r}."
    ) from None
USE_TZ = True

# Static files: our own stylesheet, served by whitenoise (no CDN).
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Hashed, compressed files (production) need `collectstatic`; development and
# the tests serve the files as they are, straight from static/.
STATIC_MANIFEST = env_bool("STATIC_MANIFEST", not DEBUG)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage",
    },
}
if not STATIC_MANIFEST:
    WHITENOISE_USE_FINDERS = True
    WHITENOISE_AUTOREFRESH = True

LOGIN_URL = "admin:login"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # httpx logs every request at INFO; the fetch history already has them.
        "httpx": {"level": "WARNING"},
    },
}

# AITOP's own settings.
AITOP_SITE_NAME = "AITOP"
# How many items the stream shows at most on one page (whole days are kept).
AITOP_STREAM_PAGE_ITEMS = env_int("AITOP_STREAM_PAGE_ITEMS", 60)
# Heat halves every this many hours (stories/heat.py, docs/heat.md).
AITOP_HEAT_HALF_LIFE_HOURS = env_float("AITOP_HEAT_HALF_LIFE_HOURS", 24.0)
# Stories in a day's brief (/daily/<date>/).
AITOP_DAILY_BRIEF_SIZE = env_int("AITOP_DAILY_BRIEF_SIZE", 10)
# Our few overrides of Django's date formats (see aitop/formats/).
FORMAT_MODULE_PATH = ["aitop.formats"]

# The REST API (api/, under /api/v1/). Every default that DRF leaves open is
# set here on purpose, so reading this block tells what a caller may do.
REST_FRAMEWORK = {
    # Token first: its `WWW-Authenticate: Token` header makes a missing or bad
    # token a 401 (with Session first, DRF would answer 403).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Reads for anyone, writes only with the model permission; views narrow it.
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.DjangoModelPermissionsOrAnonReadOnly"
    ],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.KeysetPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_FILTER_BACKENDS": [],
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttling.AnonymousThrottle",
        "api.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("AITOP_API_ANON_RATE", "60/min"),
        "user": env_str("AITOP_API_USER_RATE", "600/min"),
    },
    # How many proxies in front of us append to X-Forwarded-For. 0: the client
    # is REMOTE_ADDR and the header is ignored, so a forged one dodges nothing.
    "NUM_PROXIES": env_int("AITOP_API_NUM_PROXIES", 0),
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # The browsable API is for logged-in staff; everyone else gets JSON.
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.StaffBrowsableNegotiation",
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "URL_FORMAT_OVERRIDE": None,
    "DEFAULT_VERSIONING_CLASS": None,
    "DEFAULT_SCHEMA_CLASS": "api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "AITOP API",
    "DESCRIPTION": (
        "Published AI news with the public site's filters; token-authenticated submissions "
        "and editorial actions. Errors always have the shape of the `Error` schema."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI and Redoc from our own static files: the docs work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.add_error_responses",
    ],
    "TAGS": [
        {
            "name": "items",
            "description": "Published items; submissions, edits and editorial moves.",
        },
        {"name": "sources", "description": "Where items come from."},
        {"name": "tags", "description": "Tags of the (filtered) stream with their item counts."},
        {"name": "days", "description": "Days of the (filtered) stream with their item counts."},
    ],
    "ENUM_NAME_OVERRIDES": {
        "KindEnum": "feed.models.Kind",
        "CategoryEnum": "feed.models.Category",
        "ItemStatusEnum": "feed.models.Item.Status",
    },
}
# Longest value of any API parameter (query string, path, JSON string field).
AITOP_API_MAX_PARAMETER_LENGTH = env_int("AITOP_API_MAX_PARAMETER_LENGTH", 2000)
# The address of the public site, for absolute links in webhook bodies (no
# request to take it from there), e.g. https://aitop.example. Empty: relative links.
AITOP_PUBLIC_URL = env_str("AITOP_PUBLIC_URL", "").rstrip("/")

# Webhooks (webhooks/): signed POSTs to receivers that editors register.
WEBHOOK_TIMEOUT = env_int("AITOP_WEBHOOK_TIMEOUT", 10)  # seconds for one try
WEBHOOK_MAX_ATTEMPTS = env_int("AITOP_WEBHOOK_MAX_ATTEMPTS", 8)
# The wait before try n+1 is BASE * 4**(n-1) seconds, at most MAX.
WEBHOOK_BACKOFF_BASE = env_int("AITOP_WEBHOOK_BACKOFF_BASE", 30)
WEBHOOK_BACKOFF_MAX = env_int("AITOP_WEBHOOK_BACKOFF_MAX", 6 * 3600)
# Receivers on non-public addresses are refused by the network guard, as
# feeds are; tests and local development list their own hosts here.
WEBHOOK_ALLOW_HOSTS = env_list("AITOP_WEBHOOK_ALLOW_HOSTS")
# Fetching feeds (feed/ingest/). Feeds come from the open internet, so every
# limit below is there to keep a broken or hostile one from hurting a run.
# Host names or addresses that the network guard lets through although they
# are not public (loopback, private…): tests and local development only.
FETCH_ALLOW_HOSTS = env_list("AITOP_FETCH_ALLOW_HOSTS")
# A CA bundle to verify TLS with instead of certifi's (a company proxy's CA).
FETCH_CA_BUNDLE = env_str("AITOP_FETCH_CA_BUNDLE", "")
# Names AITOP; a deployment adds its own contact URL, as feed hosts like to see.
FETCH_USER_AGENT = env_str("AITOP_FETCH_USER_AGENT", "AITOP/0.1 (AI news desk; feed fetcher)")
FETCH_CONNECT_TIMEOUT = env_float("AITOP_FETCH_CONNECT_TIMEOUT", 10.0)  # seconds
FETCH_READ_TIMEOUT = env_float("AITOP_FETCH_READ_TIMEOUT", 20.0)  # seconds between two reads
FETCH_TOTAL_TIMEOUT = env_float("AITOP_FETCH_TOTAL_TIMEOUT", 60.0)  # seconds for a whole fetch
# Largest body we read, counted after decompression (so a gzip bomb stops here).
FETCH_MAX_BYTES = env_int("AITOP_FETCH_MAX_BYTES", 10 * 1024 * 1024)
FETCH_MAX_REDIRECTS = env_int("AITOP_FETCH_MAX_REDIRECTS", 5)
# Entries taken from one fetch; the rest are reported as skipped.
FETCH_MAX_ENTRIES = env_int("AITOP_FETCH_MAX_ENTRIES", 200)
# Seconds between two requests to one host (name and port); arXiv asks for 3.
FETCH_HOST_GAP = env_float("AITOP_FETCH_HOST_GAP", 1.0)
FETCH_HOST_GAPS = env_number_map(
    "AITOP_FETCH_HOST_GAPS",
    {"export.arxiv.org": 3.0, "arxiv.org": 3.0, "rss.arxiv.org": 3.0},
)
# Failures back off exponentially from the base, up to the cap, with jitter.
FETCH_BACKOFF_BASE = env_float("AITOP_FETCH_BACKOFF_BASE", 300.0)  # seconds
FETCH_BACKOFF_MAX = env_float("AITOP_FETCH_BACKOFF_MAX", 86400.0)  # seconds
# A feed's own Retry-After, Cache-Control, Expires or <ttl> is obeyed up to this
# many seconds, so a typo in a header cannot stop a source for years.
FETCH_MAX_DELAY = env_float("AITOP_FETCH_MAX_DELAY", 7 * 86400.0)
# After this many failures in a row a source is flagged as failing in the admin.
FETCH_FAILING_AFTER = env_int("AITOP_FETCH_FAILING_AFTER", 5)
# How long a worker may hold a source (and its host) before another may take it.
FETCH_LEASE_SECONDS = env_float("AITOP_FETCH_LEASE_SECONDS", 300.0)
# Fetches kept per source in its history.
FETCH_HISTORY_KEEP = env_int("AITOP_FETCH_HISTORY_KEEP", 50)
# Seconds the scheduler (`manage.py fetch_scheduler`) waits between two rounds.
FETCH_SCHEDULER_INTERVAL = env_float("AITOP_FETCH_SCHEDULER_INTERVAL", 15.0)
