#!/bin/sh
# Install deja from a release: picks the archive for this machine, checks it
# against the release's checksums.txt, and puts the deja binary in
# ~/.local/bin (or --dir DIR). POSIX sh; needs curl or wget, tar, and
# sha256sum or shasum.
#
#   curl -fsSL https://raw.githubusercontent.com/deja-dev/deja/main/install.sh | sh
#   sh install.sh --dir /usr/local/bin --version v0.4.0
#
# DEJA_INSTALL_URL replaces the releases address (a mirror, or a local
# server in deja's own tests); DEJA_INSTALL_DIR and DEJA_VERSION are the
# flags' defaults.
set -eu

base="${DEJA_INSTALL_URL:-https://github.com/deja-dev/deja/releases}"
dir="${DEJA_INSTALL_DIR:-$HOME/.local/bin}"
version="${DEJA_VERSION:-latest}"

say() { printf '%s\n' "$*"; }
fail() {
	printf 'install.sh: %s\n' "$*" >&2
	exit 1
}

usage() {
	cat <<'EOF'
usage: install.sh [--dir DIR] [--version vX.Y.Z]

Installs the deja release for this machine into DIR (default ~/.local/bin),
after checking its SHA-256 against the release's checksums.txt.
  --dir DIR          where to put the deja binary
  --version VERSION  a release tag such as v0.4.0 (default: the latest)
EOF
}

while [ $# -gt 0 ]; do
	case "$1" in
	--dir) [ $# -ge 2 ] || fail "--dir needs a directory"; dir="$2"; shift 2 ;;
	--dir=*) dir="${1#--dir=}"; shift ;;
	--version) [ $# -ge 2 ] || fail "--version needs a tag such as v0.4.0"; version="$2"; shift 2 ;;
	--version=*) version="${1#--version=}"; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; fail "unknown argument: $1" ;;
	esac
done

case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
MINGW* | MSYS* | CYGWIN*) fail "on Windows, install with Scoop (scoop install deja) or download deja_windows_amd64.zip from $base" ;;
*) fail "no release for $(uname -s); build from source: go install github.com/deja-dev/deja/cmd/deja@latest" ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) fail "no release for $(uname -m); build from source: go install github.com/deja-dev/deja/cmd/deja@latest" ;;
esac

archive="deja_${os}_${arch}.tar.gz"
if [ "$version" = latest ]; then
	url="$base/latest/download"
else
	case "$version" in v*) ;; *) version="v$version" ;; esac
	url="$base/download/$version"
fi

if command -v curl >/dev/null 2>&1; then
	fetch() { curl -fsSL --proto '=https,http' -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
	fetch() { wget -q -O "$2" "$1"; }
else
	fail "needs curl or wget to download the release"
fi
if command -v sha256sum >/dev/null 2>&1; then
	sha256() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
	sha256() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
	fail "needs sha256sum or shasum to check the download"
fi

tmp="$(mktemp -d 2>/dev/null || mktemp -d -t deja-install)"
trap 'rm -rf "$tmp"' EXIT INT TERM

say "downloading $archive ($version) from $url"
fetch "$url/$archive" "$tmp/$archive" || fail "could not download $url/$archive"
fetch "$url/checksums.txt" "$tmp/checksums.txt" || fail "could not download $url/checksums.txt"

want="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/checksums.txt")"
[ -n "$want" ] || fail "checksums.txt lists no $archive; nothing installed"
got="$(sha256 "$tmp/$archive")"
if [ "$got" != "$want" ]; then
	fail "checksum mismatch for $archive (got $got, checksums.txt says $want): the download is damaged or was tampered with; nothing installed"
fi

mkdir -p "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" || fail "could not unpack $archive"
[ -f "$tmp/x/deja" ] || fail "$archive holds no deja binary"
mkdir -p "$dir" || fail "cannot create $dir (choose another with --dir)"
# Copy beside the target, then rename: a running deja is never half-written.
if ! { cp "$tmp/x/deja" "$dir/.deja.new" && chmod 0755 "$dir/.deja.new" && mv -f "$dir/.deja.new" "$dir/deja"; }; then
	rm -f "$dir/.deja.new"
	fail "cannot write to $dir (choose another with --dir)"
fi

say "installed $("$dir/deja" version 2>/dev/null || echo deja) to $dir/deja"
case ":${PATH:-}:" in
*":$dir:"*) ;;
*)
	say ""
	say "$dir is not on your PATH. Add it, then open a new shell:"
	case "${SHELL:-}" in
	*/fish) say "  fish_add_path $dir" ;;
	*/zsh) say "  echo 'export PATH=\"$dir:\$PATH\"' >> ~/.zshrc" ;;
	*/bash) say "  echo 'export PATH=\"$dir:\$PATH\"' >> ~/.bashrc" ;;
	*) say "  echo 'export PATH=\"$dir:\$PATH\"' >> ~/.profile" ;;
	esac
	;;
esac
say "next: deja index && deja recall \"that tenant bug\""
