// Package digest is what a person or an agent is shown of the store as a
// whole: the list of sessions and one session's turns, the store's status,
// and the context digest an agent is given at a session's start (recent
// decisions and the turns a query recalls).
//
// It reads the store and asks recall; it never writes.
package digest
