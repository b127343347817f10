// Package userfile reads and writes the files deja touches on a user's
// behalf with respect for what is at the path: WriteFile replaces a
// regular file atomically, writes into a FIFO or device as it is, updates
// a symlink's target and keeps the link, and refuses anything else; Read
// reads only regular files, never opening a FIFO, device or socket, and
// stops when its context ends.
//
// It knows nothing of histories or digests; callers say what a file is.
package userfile
