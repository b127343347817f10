#!/usr/bin/env bash
# deja's test suite: vet, every package's tests under the race detector,
# the tests too slow for it (the retrieval eval over the corpus), and a
# short fuzz run of the aider parser.
set -euo pipefail
cd "$(dirname "$0")"
go vet ./...
go test -race -count=1 ./...
go test -count=1 ./bench/eval ./memory
go test -run '^$' -fuzz FuzzParse -fuzztime 20s ./aider
for pkg in ./claude ./codex ./gemini; do
	go test -run '^$' -fuzz FuzzParse -fuzztime 10s "$pkg"
done
