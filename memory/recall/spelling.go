package recall

import (
	"context"
	"database/sql"
	"iter"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/internal/lazyre"
	"github.com/deja-dev/deja/memory/store"
)

// Respelling is a query word that no turn holds and the store's own word
// recall read in its place ("gunicron" read as "gunicorn").
type Respelling struct {
	Typed string `json:"typed"`
	Read  string `json:"read"`
}

// Close spellings: a query word of at least minRespell letters that no
// turn holds is read as the nearest word the store holds, at most
// maxEdits(word) edits away (Damerau: a swap of neighbours is one edit).
// Shorter words are left alone: at two edits, every short word is near
// some other.
const (
	minRespell = 5
	// respellCandidates is how many of the vocabulary's nearest stems are
	// looked up in a turn for the word as written.
	respellCandidates = 3
	// surfaceTurns is how many turns holding a candidate stem are read
	// for the word as written.
	surfaceTurns = 6
	// maxRespelled is how many of a query's words that no turn holds are
	// looked for a close spelling of, in the query's order: a prompt with
	// a pasted log or listing holds dozens, each a few reads of the
	// index, and a typo is one of the few a person typed.
	maxRespelled = 4
)

// maxEdits is how far a typed word may be from the word read for it: one
// edit up to nine letters, two from ten ("writeups" is two edits from
// "writes", and is no misspelling).
func maxEdits(word string) int {
	if utf8.RuneCountInString(word) >= 10 {
		return 2
	}
	return 1
}

// respell reads each query word that no turn in the store holds, and that
// is no word the built-in embedder knows (embed.KnownWord: "vertical" is
// a word, "gunicron" is not), as the nearest word some turn does hold,
// within maxEdits, and says so. A word the store holds is never replaced.
// Where the store cannot list its vocabulary (it cannot make a temporary
// table, say), the query is kept as typed: respelling is a help, never a
// reason for a recall to fail.
func respell(ctx context.Context, s *store.Store, q query) (query, []Respelling) {
	out, read, err := readAsSpelled(ctx, s, q)
	if err != nil {
		return q, nil
	}
	return out, read
}

// readAsSpelled is respell, failing where the vocabulary cannot be read.
func readAsSpelled(ctx context.Context, s *store.Store, q query) (query, []Respelling, error) {
	typed := q.respellable()
	if len(typed) == 0 {
		return q, nil, nil
	}
	exactWords := map[string]bool{}
	for _, e := range q.exact {
		for _, w := range words(e) {
			exactWords[w] = true
		}
	}
	// A connection of its own is taken only for a word no turn holds: the
	// vocabulary is read through fts5vocab tables in a connection's
	// temporary schema (the store's file is never written), and holding
	// one more connection on every recall made the pool open new ones.
	var conn *sql.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	read := map[string]string{}
	var out []Respelling
	tried := 0
	for _, w := range typed {
		// The keyword index stems the word as it stemmed the turns, and
		// stops at the first turn that holds it.
		var held int
		err := s.Read().QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM turns_fts WHERE turns_fts MATCH ? LIMIT 1)`, `"`+w+`"`).Scan(&held)
		if err != nil {
			return q, nil, err
		}
		if held > 0 {
			continue
		}
		if tried++; tried > maxRespelled {
			break
		}
		if conn == nil {
			if conn, err = vocabConn(ctx, s); err != nil {
				return q, nil, err
			}
		}
		typed := typedAs(q.text, w)
		surface, err := nearestWord(ctx, s, conn, typed, exactWords[w])
		if err != nil {
			return q, nil, err
		}
		if surface != "" {
			read[w] = surface
			out = append(out, Respelling{Typed: typed, Read: surface})
		}
	}
	if len(out) == 0 {
		return q, nil, nil
	}
	return q.respelled(read), out, nil
}

// vocabConn is a connection with the keyword index's vocabulary tables
// in its temporary schema.
func vocabConn(ctx context.Context, s *store.Store) (*sql.Conn, error) {
	conn, err := s.ReadConn(ctx)
	if err != nil {
		return nil, err
	}
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.deja_vocab USING fts5vocab(main, turns_fts, 'row')`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.deja_vocab_at USING fts5vocab(main, turns_fts, 'instance')`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

// respellable are the distinct lower-case words of the query long enough
// to respell: its words, and the words of its exact parts.
func (q query) respellable() []string {
	seen := map[string]bool{}
	var out []string
	add := func(ws []string) {
		for _, w := range ws {
			if !seen[w] && utf8.RuneCountInString(w) >= minRespell && !allDigits(w) && !embed.KnownWord(w) {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	add(q.words)
	for _, e := range q.exact {
		add(words(e))
	}
	return out
}

func allDigits(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// respelled is the query with each word in read (by its lower case)
// replaced by the word read for it: in its words, in lower case, and in
// its exact parts and its text as the turn writes it, so that an exact
// part stays exact ("Keys.BracketedPaset" is looked up as
// "Keys.BracketedPaste").
func (q query) respelled(read map[string]string) query {
	out := q
	out.words = nil
	for _, w := range q.words {
		out.words = append(out.words, strings.ToLower(cmpOr(read[w], w)))
	}
	out.exact, out.guessed = nil, nil
	for _, e := range q.exact {
		r := respellText(e, read)
		out.exact = append(out.exact, r)
		if q.guessed[e] {
			out.guess(r)
		}
	}
	out.text = respellText(q.text, read)
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var wordRun = lazyre.New(`[\p{L}\p{N}]+`)

// respellText is text with every word in read, in any case, replaced by
// the word read for it: what the semantic list embeds.
func respellText(text string, read map[string]string) string {
	return wordRun.ReplaceAllStringFunc(text, func(w string) string {
		return cmpOr(read[strings.ToLower(w)], w)
	})
}

// typedAs is the word w (lower case) as the query text writes it.
func typedAs(text, w string) string {
	for _, t := range wordRun.FindAllString(text, -1) {
		if strings.ToLower(t) == w {
			return t
		}
	}
	return w
}

// nearestWord is the word as some turn writes it that is nearest to the
// typed word within maxEdits, or "" when there is none; records says the
// word is part of a path or an identifier, most likely written in a
// turn's file and command records. The keyword
// index holds stems, and a stem is most often its word's start ("rank"
// for ranked, "queri" for query): its terms near a start of the typed
// word are the candidates (stemStarts, prefixDistance). For the nearest
// few, turns that hold the term give the word as written, which is what
// the distance is measured on ("cast" is near the start of "castle", but
// no word a turn writes with it is within one edit of "castle").
func nearestWord(ctx context.Context, s *store.Store, conn *sql.Conn, typed string, records bool) (string, error) {
	w := strings.ToLower(typed)
	limit := maxEdits(w) + 1
	type candidate struct {
		term      string
		dist, doc int
	}
	var cands []candidate
	seen := map[string]bool{}
	n := utf8.RuneCountInString(w)
	for _, p := range stemStarts(w) {
		terms, err := termsUnder(ctx, s, conn, p)
		if err != nil {
			return "", err
		}
		for _, t := range terms {
			c := candidate{term: t.term, doc: t.doc}
			// A stem may be shorter than its word by a suffix of up to
			// four letters ("set" for settings), or by the edits allowed.
			m := utf8.RuneCountInString(c.term)
			if m < 3 || m-n > limit || n-m > limit+4 || seen[c.term] {
				continue
			}
			seen[c.term] = true
			if c.dist = prefixDistance(c.term, w, limit-1); c.dist < limit {
				cands = append(cands, c)
			}
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		// Of stems as near, the longer says more of the word.
		if li, lj := len(cands[i].term), len(cands[j].term); li != lj {
			return li > lj
		}
		if cands[i].doc != cands[j].doc {
			return cands[i].doc > cands[j].doc
		}
		return cands[i].term < cands[j].term
	})
	if len(cands) > respellCandidates {
		cands = cands[:respellCandidates]
	}
	best, bestDist := "", maxEdits(w)+1
	for _, c := range cands {
		surface, d, err := writtenAs(ctx, conn, c.term, typed, records)
		if err != nil {
			return "", err
		}
		if surface != "" && d < bestDist {
			best, bestDist = surface, d
		}
		// One edit is as near as a word no turn holds can be.
		if bestDist == 1 {
			break
		}
	}
	return best, nil
}

// vocabTerm is a term of the keyword index and how many turns hold it.
type vocabTerm struct {
	term string
	doc  int
}

// termsUnder are the keyword index's terms that start with prefix, from
// the vocabulary a long-running process keeps (PreloadVocabulary), else
// read from the index: fts5vocab counts each term's turns as it lists
// it, which is what a read costs.
func termsUnder(ctx context.Context, s *store.Store, conn *sql.Conn, prefix string) ([]vocabTerm, error) {
	rc(s).mu.Lock()
	vocab := rc(s).vocab
	rc(s).mu.Unlock()
	if vocab != nil {
		lo, _ := slices.BinarySearchFunc(vocab, prefix, func(t vocabTerm, p string) int { return strings.Compare(t.term, p) })
		hi, _ := slices.BinarySearchFunc(vocab, prefixEnd(prefix), func(t vocabTerm, p string) int { return strings.Compare(t.term, p) })
		return vocab[lo:hi], nil
	}
	return readTerms(ctx, conn, `SELECT term, doc FROM temp.deja_vocab WHERE term >= ? AND term < ?`, prefix, prefixEnd(prefix))
}

func readTerms(ctx context.Context, conn *sql.Conn, query string, args ...any) ([]vocabTerm, error) {
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []vocabTerm
	for rows.Next() {
		var t vocabTerm
		if err := rows.Scan(&t.term, &t.doc); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// PreloadVocabulary reads the keyword index's whole vocabulary into
// memory, where respelling a query's word then finds its candidates
// without reading the index (about half a second at 100,000 turns, once,
// for a long-running process; a one-shot recall reads only the terms it
// needs). It is dropped with the other caches when the store changes
// (Invalidate).
func PreloadVocabulary(ctx context.Context, s *store.Store) error {
	conn, err := s.ReadConn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS temp.deja_vocab USING fts5vocab(main, turns_fts, 'row')`); err != nil {
		return err
	}
	terms, err := readTerms(ctx, conn, `SELECT term, doc FROM temp.deja_vocab`)
	if err != nil {
		return err
	}
	// fts5vocab lists terms in order; sorted here all the same, since
	// termsUnder searches them.
	sort.Slice(terms, func(i, j int) bool { return terms[i].term < terms[j].term })
	rc(s).mu.Lock()
	rc(s).vocab = terms
	rc(s).mu.Unlock()
	return nil
}

// stemStarts are the two-letter starts of the vocabulary's terms a
// misspelled word w is looked for under: its own first two letters (a
// slip after them), and its first and third (the second and third
// swapped, or the second one too many: "rnaked" for "ranked"). Reading
// the whole letter's terms cost 42 ms at 100,000 turns, each of these
// a tenth of that; a slip in the first two letters is not found.
func stemStarts(w string) []string {
	r := []rune(w)
	if len(r) < 3 {
		return nil
	}
	out := []string{string(r[:2])}
	if r[2] != r[1] {
		out = append(out, string([]rune{r[0], r[2]}))
	}
	return out
}

// prefixEnd is the least string above every string that starts with p.
func prefixEnd(p string) string {
	r := []rune(p)
	r[len(r)-1]++
	return string(r)
}

// writtenAs reads a few turns that hold term and returns their word
// nearest to the typed word, as written there, with its distance (a stem
// stands for several words: "rank" for rank, ranks and ranked). Of words
// as near, the one whose capitals stand where the typed word's do wins
// ("mixpanel" for "mixpanle", not "MIXPANEL").
func writtenAs(ctx context.Context, conn *sql.Conn, term, typed string, records bool) (string, int, error) {
	if records {
		// A path's or an identifier's word: the turns whose records hold
		// the term first, where a common stem ("set" for settings) has
		// too many turns of prose to find it in the first few.
		best, d, err := writtenIn(ctx, conn, term, typed, `col IN ('files', 'commands') AND `)
		if err != nil || best != "" {
			return best, d, err
		}
	}
	return writtenIn(ctx, conn, term, typed, "")
}

// writtenIn is writtenAs over the turns that hold term where also holds.
func writtenIn(ctx context.Context, conn *sql.Conn, term, typed, also string) (string, int, error) {
	w := strings.ToLower(typed)
	// The instance table finds the turns by the stem itself: a MATCH
	// would stem it again ("checkoutservic" to "checkoutserv").
	rows, err := conn.QueryContext(ctx, `SELECT t.user, t.assistant, t.files, t.commands FROM turns t
		WHERE t.id IN (SELECT DISTINCT doc FROM temp.deja_vocab_at WHERE `+also+`term = ? LIMIT ?)`, term, surfaceTurns)
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	limit := maxEdits(w)
	best, bestDist, bestCase := "", limit+1, 0
	prefix := string([]rune(term)[:min(2, utf8.RuneCountInString(term))])
	for rows.Next() {
		var user, assistant, files, commands string
		if err := rows.Scan(&user, &assistant, &files, &commands); err != nil {
			return "", 0, err
		}
		for _, text := range []string{files, commands, user, assistant} {
			for tok := range wordsOf(text) {
				if !hasFoldPrefix(tok, prefix) {
					continue
				}
				lower := strings.ToLower(tok)
				if lower == w {
					continue
				}
				d := editDistance(w, lower, limit)
				if d > limit {
					continue
				}
				c := caseDiffers(typed, tok)
				if d < bestDist || (d == bestDist && (c < bestCase || (c == bestCase && tok < best))) {
					best, bestDist, bestCase = tok, d, c
				}
			}
		}
	}
	return best, bestDist, rows.Err()
}

// wordsOf yields the runs of letters and digits in text, as wordRun
// finds them, without a regular expression: writtenIn scans a few turns'
// whole text for each candidate stem, and the expression's backtracking
// was most of a long query's recall.
func wordsOf(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1
		for i, r := range text {
			in := unicode.IsLetter(r) || unicode.IsNumber(r)
			switch {
			case in && start < 0:
				start = i
			case !in && start >= 0:
				if !yield(text[start:i]) {
					return
				}
				start = -1
			}
		}
		if start >= 0 {
			yield(text[start:])
		}
	}
}

// hasFoldPrefix says whether tok starts with prefix, a lower-case
// string, in any case.
func hasFoldPrefix(tok, prefix string) bool {
	for _, p := range prefix {
		r, size := utf8.DecodeRuneInString(tok)
		if size == 0 || unicode.ToLower(r) != p {
			return false
		}
		tok = tok[size:]
	}
	return true
}

// prefixDistance is the least editDistance between term and a start of
// w no more than limit runes longer or shorter than term, or limit+1. A
// start ending in y is also read with i, as the stemmer writes it
// ("queri" for query).
func prefixDistance(term, w string, limit int) int {
	rw := []rune(w)
	n := utf8.RuneCountInString(term)
	best := limit + 1
	for j := max(0, n-limit); j <= min(len(rw), n+limit); j++ {
		start := string(rw[:j])
		best = min(best, editDistance(term, start, limit))
		if strings.HasSuffix(start, "y") {
			best = min(best, editDistance(term, strings.TrimSuffix(start, "y")+"i", limit))
		}
	}
	return best
}

// caseDiffers counts the places, among the first runes of both, where
// one word has a capital and the other not.
func caseDiffers(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	n := 0
	for i := range min(len(ra), len(rb)) {
		if unicode.IsUpper(ra[i]) != unicode.IsUpper(rb[i]) {
			n++
		}
	}
	return n
}

// noLimit is an editDistance limit no distance reaches.
const noLimit = int(^uint(0) >> 2)

// editDistance is the optimal string alignment distance between a and b,
// in runes (insertions, deletions, substitutions and swaps of neighbours,
// each one edit), or limit+1 when it is over limit.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit {
		return limit + 1
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if d := prev[len(rb)]; d <= limit {
		return d
	}
	return limit + 1
}
