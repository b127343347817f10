// Package jsonlimit is the JSON decoding the harness readers use:
// segmentio/encoding's, which follows nesting by recursion, behind a check
// that refuses input nested deeper than MaxDepth before it is decoded. A
// transcript line of two million '[' would otherwise run the goroutine's
// stack out, a fatal error no recover catches, and stop every index run
// that meets it. It owns no parsing of its own.
package jsonlimit
