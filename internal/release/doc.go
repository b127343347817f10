// Package release holds the tests of deja's release: the goreleaser
// configuration (.goreleaser.yaml) and install.sh, which its test runs
// against release artifacts served from a local HTTP server. It has no code
// of its own.
package release
