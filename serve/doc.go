// Package serve offers deja's memory to agents: an MCP server with recall,
// show and sessions tools (over stdio or streamable HTTP), a small JSON
// recall endpoint with token checks, the serve.json file by which
// 'deja recall' finds a running server for its data directory, and the
// client it asks with.
//
// It reads the store through memory.Warm; it never indexes, and knows
// nothing of cobra or flags.
package serve
