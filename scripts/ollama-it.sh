#!/usr/bin/env bash
# ollama-it.sh: deja against a real Ollama server. Builds Ollama at the
# version go.mod names (scripts/ollama-build.sh: minutes the first time,
# then cached), and runs embed/realollama: the tests generate small BERT
# models (embed/bertgen), 'ollama create' them, start 'ollama serve' on
# loopback and run deja against it.
#
#   scripts/ollama-it.sh              the integration tests
#   scripts/ollama-it.sh --bench      and the throughput benchmark
#   scripts/ollama-it.sh -run Doctor  extra flags go to 'go test'
set -euo pipefail
cd "$(dirname "$0")/.."

bench=0
if [ "${1:-}" = "--bench" ]; then
	bench=1
	shift
fi

DEJA_IT_OLLAMA=$(scripts/ollama-build.sh)
export DEJA_IT_OLLAMA

go test -count=1 -timeout 40m -v "$@" ./embed/realollama/
if [ "$bench" = 1 ]; then
	go test -count=1 -timeout 60m -run '^$' -bench OllamaThroughput -benchtime 1x ./embed/realollama/
fi
