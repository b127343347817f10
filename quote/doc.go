// Package quote is how deja hands history to an agent: as data, never as
// instructions. Block puts quoted text inside a labelled fence that the
// text cannot close; Text and Line make control characters (CR, ANSI
// escapes, zero-width and bidi controls) visible and inert. Origins tells
// a history this machine wrote from one a repository brought in. It knows
// nothing of the store, digests or MCP; they call it.
package quote
