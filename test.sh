#!/usr/bin/env bash
# deja's test suite: vet, every package's tests under the race detector,
# the tests too slow for it (the retrieval eval over the corpus), and a
# short fuzz run of the aider parser.
set -euo pipefail
cd "$(dirname "$0")"
# --ollama: the tests against a real Ollama server instead (builds it at
# go.mod's version first; see scripts/ollama-it.sh).
if [ "${1:-}" = "--ollama" ]; then
	shift
	exec scripts/ollama-it.sh "$@"
fi
go vet ./...
go test -race -count=1 ./...
go test -count=1 ./bench/eval ./memory
go test -run '^$' -fuzz FuzzParse -fuzztime 20s ./aider
for pkg in ./claude ./codex ./gemini ./opencode; do
	go test -run '^$' -fuzz FuzzParse -fuzztime 10s "$pkg"
done
go test -run '^$' -fuzz FuzzText -fuzztime 10s ./memory/redact
go test -run '^$' -fuzz FuzzBlock -fuzztime 10s ./quote
