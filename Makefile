# One command sets up and runs the demo; one command runs the tests. Both work offline.
VENV ?= .venv
BIN := $(VENV)/bin
export HF_HUB_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export LANGSMITH_TRACING := false
export LANGGRAPH_CLI_NO_ANALYTICS := 1

.PHONY: setup demo test lint
setup: $(VENV)/.installed

# llama.cpp's CPU build for AVX2, not -march=native: a native build on these Xeons compiles in
# AMX kernels, and the first multi-token decode then segfaults inside the VM.
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON

# torch is installed first and pinned: the CPU build on this machine's disk, never a CUDA download.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/python -m pip install -q 'llama-cpp-python[server]==0.3.36'
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $@

demo: setup
	$(BIN)/resin demo

lint: setup
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/langgraph validate

test: lint
	$(BIN)/pytest -q -ra
