# Two commands do everything on a fresh machine with Python 3.11, make and apt-get:
#   make run    set up, migrate and serve on 0.0.0.0:8000 (SQLite under data/)
#   make test   set up, install Chromium, PostgreSQL, Redis and nginx if missing, lint and run
#               every test
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 0.0.0.0
PORT ?= 8000

.PHONY: run test lint bench simulate clean chromium services bytecode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { rm -rf $(VENV); apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null && \
		$(PYTHON) -m venv $(VENV); }

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

# An editable install leaves the project's own modules uncompiled, and where
# PYTHONDONTWRITEBYTECODE is set (as in deploy/Dockerfile) every start compiled them again:
# about 200 ms of a 0.9 s start. Compiling only what changed takes about 40 ms.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q app engine

run: $(STAMP) bytecode
	@mkdir -p data
	$(BIN)/pecet serve --host $(HOST) --port $(PORT)

chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "Installing Debian's chromium for the browser tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# The database tests run again on PostgreSQL, the multi-process tests share rooms through
# Redis, and deploy/nginx.conf is tried with nginx: each test run starts its own servers from
# Debian's packages (tests/services.py, tests/test_deploy.py).
services:
	@{ command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; } \
		&& command -v redis-server >/dev/null 2>&1 \
		&& { command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; } || { \
		echo "Installing Debian's postgresql, redis-server and nginx for the tests"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			postgresql redis-server nginx >/dev/null; }

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: $(STAMP) chromium services lint
	$(BIN)/pytest -q -n 2 --dist loadscope

# Every bench/*.py with its defaults, then the load test at 50 and at 200 rooms, and at 50
# rooms over two processes sharing Redis (it starts its own servers on free ports; see
# bench/README.md).
bench: $(STAMP)
	@for script in bench/*.py; do \
		[ "$$script" = bench/load.py ] || $(BIN)/python $$script || exit 1; done
	$(BIN)/python bench/load.py --rooms 50
	$(BIN)/python bench/load.py --rooms 200
	$(BIN)/python bench/load.py --rooms 50 --processes 2
	$(BIN)/python bench/load.py --rooms 10 --format html
	$(BIN)/python bench/load.py --rooms 200 --step-seconds 1.6 --format html

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis test-artifacts
