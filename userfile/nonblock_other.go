//go:build !unix

package userfile

// nonBlock is nothing where opens do not block on FIFOs.
const nonBlock = 0
