# afsim: `make test` installs what the tests need and runs the whole suite (Rust and Python);
# `make lint` checks the code without running it (import cycles, ruff, clippy, rustfmt).
#
# The package is installed normally (not editable), which builds the extension in release
# mode: the Python tests run scenarios, so speed matters. The binding crate (afsim-py) is left
# out of `cargo test`: it is a cdylib for the Python interpreter, tested from python/tests.
# Under pyenv, `pyenv rehash` makes the new `afsim` console script visible through its shims.
# `make deps` installs the Debian programs the Python tests drive (chromium renders the HTML
# report, tshark reads pcap captures, ns2 is ns-2 2.35, the papers' simulator, which runs the
# reproductions' ns-2 twins) when they are missing; it needs root (CI is).

PYTHON ?= python3
INSTALL = $(PYTHON) -m pip install --progress-bar off '.[test]' && \
	{ if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi; }

.PHONY: test install run bench deps lint

# Debian package:the command it installs
DEBS = chromium:chromium tshark:tshark ns2:ns

test:
	$(INSTALL)
	cargo test --workspace --exclude afsim-py
	$(PYTHON) -m pytest python/tests

install:
	$(INSTALL)

# `make lint`: no import cycle in afsim-core or in the Python package (tools/import_cycles.py),
# ruff over the Python code (its rules in pyproject.toml; installed here if missing, as the
# test extras do), clippy with every warning an error, and rustfmt's formatting. .ci/run runs
# it before the tests.
RUFF = ruff>=0.6
lint:
	$(PYTHON) tools/import_cycles.py
	$(PYTHON) -m ruff --version >/dev/null 2>&1 || $(PYTHON) -m pip install --progress-bar off '$(RUFF)'
	$(PYTHON) -m ruff check python validation tools
	cargo clippy --workspace --all-targets -- -D warnings
	cargo fmt --all -- --check

deps:
	@missing=""; for pc in $(DEBS); do command -v $${pc#*:} >/dev/null 2>&1 || missing="$$missing $${pc%%:*}"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$missing; \
	fi

run: install
	$(PYTHON) -m afsim run

bench: install
	$(PYTHON) -m afsim bench
