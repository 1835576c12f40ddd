# Curlew: `make run` opens the demo, `make test` runs every test. Both install missing system packages.

SWIFT ?= swift
SYSTEM_PACKAGES := libcurl4-openssl-dev libncurses-dev tmux
CURLEW := .build/debug/curlew

.PHONY: run test build deps demo-server tui-e2e clean

deps:
	@scripts/ensure-packages.sh $(SYSTEM_PACKAGES)

build: deps
	$(SWIFT) build

run: build
	$(CURLEW)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	scripts/tui-e2e.sh $(CURLEW)

tui-e2e: build
	scripts/tui-e2e.sh $(CURLEW)

demo-server: build
	$(CURLEW) demo-server --port 8080

clean:
	rm -rf .build
