# AITOP: `make run` serves the site, `make test` runs the checks. Both set up
# .venv (Python 3.13) and the database first, on a fresh clone as on an old one.

PYTHON ?= $(shell command -v python3.13 2>/dev/null || echo python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
# Management commands run by these targets are for development: DEBUG on
# unless the caller says otherwise.
MANAGE := DEBUG=$${DEBUG:-1} $(BIN)/python manage.py

.PHONY: run test setup worker scheduler bench bench-site bench-ingest bench-api lint format messages clean

# `make run PORT=8001` for another port.
PORT ?= 8000

run: setup
	$(MANAGE) load_demo
	$(MANAGE) runserver 127.0.0.1:$(PORT)

test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# One background worker for fetches, webhooks and other tasks.
worker: setup
	$(MANAGE) db_worker

# Queues a fetch for every source that is due, every few seconds (for the workers).
scheduler: setup
	$(MANAGE) fetch_scheduler

setup: $(INSTALLED)
	$(MANAGE) compilemessages --ignore=$(VENV) --verbosity=0
	$(MANAGE) migrate --noinput --verbosity=1

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 13) else "AITOP needs Python 3.13; set PYTHON=/path/to/python3.13")'
	$(PYTHON) -m venv $(VENV)

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(INSTALLED)

# Benchmarks (README: "Benchmarks"), each on a throwaway database; nothing real
# is touched. BENCH_ARGS passes options to one of them, e.g.
# make bench-site BENCH_ARGS="--items 20000 --requests 100".
bench: bench-site bench-ingest bench-api

# The public pages, DEBUG off as in production.
bench-site: setup
	DEBUG=0 AITOP_ENVIRONMENT=test SECRET_KEY=$${SECRET_KEY:-benchmark-only-not-a-secret} STATIC_MANIFEST=0 \
		$(BIN)/python manage.py benchmark_site $(BENCH_ARGS)

# A 10,000-entry feed; 1,000 sources on 50 loopback hosts and the shared corpus,
# fetched by 1 and 2 fetch_workers beside newsboat (Debian package) in turns.
# On a new SQLite file unless BENCH_ARGS="--database-url postgres://…/a_spare_db".
bench-ingest: setup
	$(BIN)/python bench/ingest.py $(BENCH_ARGS)

# The API's item list over real HTTP (gunicorn on 127.0.0.1).
bench-api: setup
	$(BIN)/python bench/api_throughput.py $(BENCH_ARGS)

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(INSTALLED)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Refresh the .po files after changing user-facing strings.
messages: $(INSTALLED)
	$(MANAGE) makemessages --locale=zh_Hans --locale=en --ignore=$(VENV) --ignore=test-artifacts --no-obsolete

clean:
	rm -rf $(VENV) staticfiles
