// Package jsonscan walks JSON without building it: a reader pulls the few
// fields it needs from a record and skips the rest (a tool's output, a
// file's content) in one pass that finds string ends with bytes.IndexByte.
// It validates only what it walks; the harness readers use it because
// encoding/json and map decoding parse agent records of large tool outputs
// several times slower than their benchmarks allow.
package jsonscan
