#!/usr/bin/env bash
# deja's test suite: vet, then every package's tests (race detector on the
# packages where it fits CI's time), then a short fuzz run of the parser.
set -euo pipefail
cd "$(dirname "$0")"
go vet ./...
go test -race -count=1 ./...
go test -run '^$' -fuzz FuzzParse -fuzztime 20s ./aider
