// Package redact removes secrets from chat text before deja stores, indexes or
// embeds it: each credential becomes "[redacted:<kind>]" and the words around
// it stay searchable. It recognises secrets by their shape and the words next
// to them, never by looking anything up; it knows nothing of histories,
// sessions or the ledger, and keeping the count it reports is the caller's job.
package redact
