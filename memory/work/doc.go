// Package work answers questions about what past sessions did rather than
// what they said: which turns edited a file (Blame), how this machine runs
// a command and how often that worked (How), what was run after an error
// until it stopped (Fix), which errors keep coming back (Friction), and
// the text an edit replaced (Restore). It reads the turns' file and
// command records and the outcomes and spans the harnesses recorded
// (chunk.Work), through the store's read connections.
package work
