// Package redacttest holds the tables of secrets and look-alikes that the
// redaction tests share: redact's own table test, and memory's test that
// indexes every secret and scans the store for it. It holds test data only.
package redacttest
