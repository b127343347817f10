// Package userfile reads and writes the files deja touches on a user's
// behalf with respect for what is at the path: WriteFile replaces a
// regular file atomically, updates a symlink's target and keeps the link
// unless another user planted it in a shared directory, and refuses
// anything else (a FIFO, a device, a socket); Read
// reads only regular files, never opening a FIFO, device or socket, and
// stops when its context ends. ResolvePath gives one name to every
// spelling of a path (relative, through symlinks, with ".."), the name
// the store keys a history and a project by.
//
// It knows nothing of histories or digests; callers say what a file is.
package userfile
