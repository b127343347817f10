// Package harness is the seam between the agents deja reads and the rest of
// deja: the neutral shape of a parsed history (sessions, messages, records)
// that every harness package (aider, claude, codex, gemini, opencode)
// produces and that chunk and memory consume. It owns no parsing, storage or
// ranking.
package harness
