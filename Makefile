# graphmem: the two commands the README opens with, and their helpers.
#   make demo   venv + install, start Neo4j (kept running, data kept) if NEO4J_URI is not set, write and read real memories
#   make test   venv + install, then the whole suite against a real Neo4j
#   make docs   the API reference, generated from the docstrings by pdoc, into site/ (git-ignored)
#   make bench  every benchmark, each on a fresh Neo4j of its own unless NEO4J_URI is set; tables in bench/results
PYTHON ?= python3
# each on a freshly started Neo4j of its own (unless NEO4J_URI is set): one benchmark's data,
# or its erased documents still counted in Lucene's term statistics, cannot shift another's
BENCHES := recall write longmemeval locomo graphiti_compare scale scale_tenants
# the scale benchmarks hold up to 2M 256-d memories and their indexes: a bigger heap and page cache
# than the launcher's defaults (GRAPHMEM_SCALE_HEAP, GRAPHMEM_SCALE_PAGECACHE change them); it runs for half an hour or more
SCALE_NEO4J := GRAPHMEM_NEO4J_HEAP=$${GRAPHMEM_SCALE_HEAP:-4g} GRAPHMEM_NEO4J_PAGECACHE=$${GRAPHMEM_SCALE_PAGECACHE:-5g}
VENV ?= .venv
PY := $(VENV)/bin/python
GRAPHMEM := $(VENV)/bin/graphmem

.PHONY: venv demo test unit docs bench neo4j-start neo4j-stop neo4j-reset clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

# the benchmarks' own dependencies (graphiti-core, matplotlib): never graphmem's, but the
# test suite runs a tiny smoke of every benchmark, so `make test` installs them too
$(VENV)/.bench-installed: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	touch $@

venv: $(VENV)/.installed

# Neo4j stays up after the demo (its data kept in .graphmem/neo4j-data), so the printed
# Browser URL shows the demo's graph; the last lines say how to stop it and where the data is
demo: venv
	@if [ -z "$$NEO4J_URI" ]; then \
	  eval "$$($(GRAPHMEM) neo4j start)" && export NEO4J_URI NEO4J_USER NEO4J_PASSWORD NEO4J_BROWSER_URL || exit 1; \
	  started=1; \
	fi; \
	$(GRAPHMEM) demo || exit 1; \
	if [ -n "$$started" ]; then \
	  echo; \
	  echo "Neo4j is still running, with its data in $$(pwd)/.graphmem/neo4j-data (kept across stop and start)."; \
	  echo "  Browser:  $$NEO4J_BROWSER_URL  (user neo4j, password: NEO4J_PASSWORD in .graphmem/neo4j.env)"; \
	  echo "  stop it:  $(GRAPHMEM) neo4j stop      (keeps the data)"; \
	  echo "  wipe it:  $(GRAPHMEM) neo4j reset     (deletes the data; after stop)"; \
	fi

# the Browser test drives Debian's headless Chromium (no browser download at run time)
test: $(VENV)/.bench-installed
	command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver)
	$(PY) tools/unasync.py --check
	$(VENV)/bin/ruff check graphmem tests bench tools
	$(VENV)/bin/mypy
	$(PY) tools/apidoc.py --check
	$(PY) -m pytest

docs: venv
	$(PY) tools/apidoc.py

bench: $(VENV)/.bench-installed
	@status=0; \
	for b in $(BENCHES); do \
	  if [ -n "$$NEO4J_URI" ]; then $(PY) bench/$$b.py || status=1; continue; fi; \
	  state=.graphmem/bench-$$b; rm -rf $$state; \
	  ( export GRAPHMEM_STATE_DIR=$$state; \
	    case $$b in scale*) export $(SCALE_NEO4J);; esac; \
	    eval "$$($(GRAPHMEM) neo4j start --ephemeral --no-browser)" && export NEO4J_URI NEO4J_USER NEO4J_PASSWORD || exit 1; \
	    $(PY) bench/$$b.py; rc=$$?; $(GRAPHMEM) neo4j stop; exit $$rc ) || status=1; \
	  rm -rf $$state; \
	done; \
	exit $$status

unit: venv
	$(PY) -m pytest tests/unit

neo4j-start: venv
	$(GRAPHMEM) neo4j start

neo4j-stop: venv
	$(GRAPHMEM) neo4j stop

neo4j-reset: venv
	$(GRAPHMEM) neo4j reset

clean:
	rm -rf $(VENV) dist build site .pytest_cache
