#!/usr/bin/env bash
# deja's test suite: vet, every package's tests under the race detector,
# the tests too slow for it (the retrieval eval over the corpus) or that
# build deja as it is released (install.sh against a local release, and
# the six release targets' cross builds, in the background), and short
# fuzz runs of the readers, redaction and quoting. Every step runs,
# whatever an earlier one did; the suite then lists the steps that failed
# and exits non-zero if any did.
set -uo pipefail
cd "$(dirname "$0")"
# --ollama: the tests against a real Ollama server instead (builds it at
# go.mod's version first; see scripts/ollama-it.sh).
if [ "${1:-}" = "--ollama" ]; then
	shift
	exec scripts/ollama-it.sh "$@"
fi

# A race-built program waits a second at exit (GORACE's atexit_sleep_ms)
# so that a report from another goroutine can finish; the tests run deja
# and their own binary as child processes hundreds of times, and those
# seconds were most of the race run. 50 ms leaves a report in flight time
# to print; a GORACE the caller set comes after, so it wins.
export GORACE="atexit_sleep_ms=50${GORACE:+ $GORACE}"

failed=()
steps=0
step() {
	steps=$((steps + 1))
	echo "==> $*"
	if ! "$@"; then
		failed+=("$*")
	fi
}

# The six release targets' builds (TestReleaseTargetsBuild with
# DEJA_RELEASE_TARGETS=all: linux, darwin and windows on amd64 and arm64,
# as the release builds them) compile every package again for each target,
# minutes of CPU with a cold build cache and seconds with a warm one; the
# README's go install line, from a module proxy on disk
# (TestGoInstallFromTheModulePath), compiles deja's packages again. They
# start here, in the background at the lowest priority, so that they take
# a core only when the other steps leave one idle; the suite waits for them
# at its end, where their output is printed as a step's (-timeout 60m:
# builds that wait on busy cores could outlast go test's default 10 min).
# DEJA_TEST_SKIP_TARGETS=1 leaves them out (.ci/run's first pass, which
# builds the same code). The steps below skip these two tests while they
# run here.
targets_pid=
not_targets=()
if [ -z "${DEJA_TEST_SKIP_TARGETS:-}" ]; then
	builds='^(TestReleaseTargetsBuild|TestGoInstallFromTheModulePath)$'
	not_targets=(-skip "$builds")
	targets_log=$(mktemp)
	DEJA_RELEASE_TARGETS=all nice -n 19 go test -count=1 -timeout 60m -run "$builds" -v ./internal/release >"$targets_log" 2>&1 &
	targets_pid=$!
	# An interrupted suite stops them too.
	trap 'if [ -n "$targets_pid" ]; then kill "$targets_pid" 2>/dev/null; fi; rm -f "$targets_log"' EXIT
fi
# release_targets waits for the background builds and prints what they said.
release_targets() {
	local rc=0
	wait "$targets_pid" || rc=$?
	targets_pid=
	cat "$targets_log"
	return "$rc"
}

# DEJA_TEST_SKIP_VET=1 leaves vet out: .ci/run's first pass, whose copy
# holds the same code its second pass vets.
if [ -z "${DEJA_TEST_SKIP_VET:-}" ]; then
	step go vet ./...
	# The devnats build (the NATS server inside deja) is vetted, not shipped.
	step go vet -tags devnats ./team ./cmd/deja
else
	echo "==> go vet left out (DEJA_TEST_SKIP_VET is set)"
fi
# The race detector is the one part of the suite that needs cgo: a C
# compiler (gcc or clang) and CGO_ENABLED=1. Without them the tests still
# run, without it, and the suite fails saying why.
# DEJA_TEST_NO_RACE=1 runs every package's tests once without the race
# detector instead of the race run and the two steps after it (whose tests
# that run then covers): .ci/run's first pass, whose point is a checkout
# with no ../shared beside it; its second pass runs the race detector over
# the same code.
if [ -n "${DEJA_TEST_NO_RACE:-}" ]; then
	step go test -count=1 ${not_targets[@]+"${not_targets[@]}"} ./...
elif [[ "$(go env CGO_ENABLED)" == 1 ]] && command -v "$(go env CC)" >/dev/null; then
	step go test -race -count=1 ./...
else
	echo "==> go test -race needs a C compiler ($(go env CC) not found, or CGO_ENABLED=0): install gcc or clang; running without -race"
	steps=$((steps + 1))
	failed+=("go test -race: no C compiler")
	step go test -count=1 ${not_targets[@]+"${not_targets[@]}"} ./...
fi
if [ -z "${DEJA_TEST_NO_RACE:-}" ]; then
	step go test -count=1 ${not_targets[@]+"${not_targets[@]}"} ./bench/eval ./bench/public ./memory/index ./memory/work ./internal/release
	step go test -count=1 -run 'TestScripts/^work$' ./cmd/deja
fi
# Short fuzz runs, counted in executions, not seconds: Go 1.26's fuzzing
# reports "context deadline exceeded" as a failure when a duration runs out
# while a worker is mid-input on a loaded machine (go.dev/issue/75804,
# fixed in Go 1.27). Each takes 7-22 s on this 2-core machine at load 3;
# a more loaded one takes longer instead of failing. Minimizing an input that
# found new coverage may take a minute by default, during which the count does
# not move (kimi's stalled for minutes): -fuzzminimizetime bounds it in runs.
# DEJA_TEST_SKIP_FUZZ=1 leaves them out: .ci/run sets it for its first
# run, in a copy without ../shared, since the fuzz runs read nothing of it
# and its second run fuzzes the same code.
if [ -z "${DEJA_TEST_SKIP_FUZZ:-}" ]; then
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 100000x ./aider
	for pkg in ./harness/claude ./harness/codex ./harness/gemini; do
		step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 100000x "$pkg"
	done
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/opencode
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/cline
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/pi
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/copilot
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/qwen
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/dsh
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/goose
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/antigravity
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/cursor
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/hermes
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/crush
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/kimi
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/kiro
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/continuedev
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/amp
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/factory
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/grok
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParse$' -fuzztime 50000x ./harness/zed
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzParsePrompts$' -fuzztime 50000x ./harness/claude
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzText$' -fuzztime 150000x ./memory/redact
	step go test -run '^$' -fuzzminimizetime 1000x -fuzz '^FuzzBlock$' -fuzztime 150000x ./quote
else
	echo "==> fuzz runs left out (DEJA_TEST_SKIP_FUZZ is set)"
fi

if [ -n "$targets_pid" ]; then
	step release_targets "(DEJA_RELEASE_TARGETS=all go test -run '$builds' ./internal/release, started at the suite's start)"
fi

noun=steps
((steps == 1)) && noun=step
if ((${#failed[@]})); then
	echo "FAIL: ${#failed[@]} of $steps $noun failed:"
	printf '  %s\n' "${failed[@]}"
	exit 1
fi
if ((steps == 1)); then
	echo "ok: the 1 step passed"
else
	echo "ok: all $steps steps passed"
fi
