#!/usr/bin/env bash
# ollama-build.sh: builds the Ollama server at the version deja's go.mod
# names, from the Go module proxy, and prints the binary's path. The binary
# is kept under $DEJA_IT_CACHE (default ~/.cache/deja-it), so a second run
# prints it at once; the first takes minutes (cgo compiles llama.cpp), and
# the Go build cache keeps most of that work when the binary is gone.
#
# Needs a C and C++ compiler and two Debian packages for headers the module
# zip leaves out (it drops vendor/ directories): nlohmann-json3-dev and
# libstb-dev. Audio decoding, which needs miniaudio.h, is replaced by a
# stand-in that always fails (scripts/ollama-it/miniaudio.h): embedding
# models never decode audio.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

version=$(go list -m -f '{{.Version}}' github.com/ollama/ollama)
cache=${DEJA_IT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/deja-it}
out=$cache/ollama-$version
bin=$out/ollama
if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi

missing=
[ -f /usr/include/nlohmann/json.hpp ] || missing="$missing nlohmann-json3-dev"
[ -f /usr/include/stb/stb_image.h ] || missing="$missing libstb-dev"
command -v g++ >/dev/null || missing="$missing g++"
if [ -n "$missing" ]; then
	echo "ollama-build: missing build dependencies; install them with: apt-get install$missing" >&2
	exit 1
fi

go mod download github.com/ollama/ollama
moddir=$(go list -m -f '{{.Dir}}' github.com/ollama/ollama)

# The module cache is read-only and lacks vendor/: build a writable copy at
# a fixed path, so the Go build cache recognises it on the next build.
src=$out/src
rm -rf "$src"
mkdir -p "$out"
cp -r "$moddir" "$src"
chmod -R u+w "$src"
vendor=$src/llama/llama.cpp/vendor
mkdir -p "$vendor/nlohmann" "$vendor/stb" "$vendor/miniaudio"
cp -r /usr/include/nlohmann/. "$vendor/nlohmann/"
cp /usr/include/stb/stb_image.h "$vendor/stb/"
cp "$root/scripts/ollama-it/miniaudio.h" "$vendor/miniaudio/miniaudio.h"

echo "ollama-build: building Ollama $version from $moddir (minutes the first time)" >&2
(cd "$src" && CGO_ENABLED=1 go build -o "$bin.tmp" .)
mv "$bin.tmp" "$bin"
echo "$bin"
