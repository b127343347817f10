//go:build !unix

package userfile

// noReader is false where a pipe's open does not fail for want of a
// reader.
func noReader(error) bool { return false }
