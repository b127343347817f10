// Package serve offers deja's memory to agents: an MCP server with recall,
// show and sessions tools (over stdio or streamable HTTP), a small JSON
// recall endpoint, the private socket (a named pipe on Windows) and the
// token-guarded TCP listener it answers on, the per-start secret by which
// a server proves it wrote serve.json, and the client that asks for that
// proof before it sends a query.
//
// It reads the store through recall.Warm; it never indexes, and knows
// nothing of cobra or flags.
package serve
