// Package memtest holds what the memory packages' tests share: a
// deterministic embedder (WordsEmbedder), a fixture store, the test
// histories and the writers of longer ones, and a connection of a test's
// own to a store's database. Only tests import it.
package memtest
