# Every target bootstraps .venv itself (idempotent): a fresh clone needs only `make run` / `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export GRADIO_ANALYTICS_ENABLED := False

.PHONY: run test lint bench venv clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	$(BIN)/python -m assistant.prepare_cache  # parsed YAML and the word index: a first question need not build them
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/gpu-advisor chat

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .


bench: $(STAMP)
	mkdir -p bench
	$(BIN)/python -m evals.bench --out bench/results.json

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
