# graphmem: the two commands the README opens with, and their helpers.
#   make demo   venv + install, start Neo4j if NEO4J_URI is not set, write and read real memories
#   make test   venv + install, then the whole suite against a real Neo4j
#   make bench  every benchmark (a fresh Neo4j of its own unless NEO4J_URI is set), tables in bench/results
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
GRAPHMEM := $(VENV)/bin/graphmem

.PHONY: venv demo test unit bench neo4j-start neo4j-stop clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

venv: $(VENV)/.installed

demo: venv
	@if [ -z "$$NEO4J_URI" ]; then \
	  eval "$$($(GRAPHMEM) neo4j start)" && export NEO4J_URI NEO4J_USER NEO4J_PASSWORD; \
	fi; \
	$(GRAPHMEM) demo

test: venv
	$(PY) tools/unasync.py --check
	$(PY) -m pytest

bench: venv
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	@started=; \
	if [ -z "$$NEO4J_URI" ]; then \
	  export GRAPHMEM_STATE_DIR=.graphmem/bench; \
	  eval "$$($(GRAPHMEM) neo4j start)" && export NEO4J_URI NEO4J_USER NEO4J_PASSWORD && started=1; \
	fi; \
	status=0; \
	{ $(PY) bench/recall.py && $(PY) bench/write.py && $(PY) bench/longmemeval.py && \
	  $(PY) bench/graphiti_compare.py; } || status=$$?; \
	if [ -n "$$started" ]; then $(GRAPHMEM) neo4j stop; fi; \
	exit $$status

unit: venv
	$(PY) -m pytest tests/unit

neo4j-start: venv
	$(GRAPHMEM) neo4j start

neo4j-stop: venv
	$(GRAPHMEM) neo4j stop

clean:
	rm -rf $(VENV) dist build .pytest_cache
