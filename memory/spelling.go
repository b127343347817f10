package memory

import (
	"context"
	"database/sql"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deja-dev/deja/embed"
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
	respellCandidates = 4
	// surfaceTurns is how many turns holding a candidate stem are read
	// for the word as written.
	surfaceTurns = 16
)

// maxEdits is how far a typed word may be from the word read for it: one
// edit up to seven letters, two from eight.
func maxEdits(word string) int {
	if utf8.RuneCountInString(word) >= 8 {
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
func (s *Store) respell(ctx context.Context, q query) (query, []Respelling) {
	out, read, err := s.readAsSpelled(ctx, q)
	if err != nil {
		return q, nil
	}
	return out, read
}

// readAsSpelled is respell, failing where the vocabulary cannot be read.
func (s *Store) readAsSpelled(ctx context.Context, q query) (query, []Respelling, error) {
	typed := q.respellable()
	if len(typed) == 0 {
		return q, nil, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return q, nil, err
	}
	defer conn.Close()
	// The vocabulary is read through fts5vocab tables in the connection's
	// temporary schema: the store's file is never written.
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.deja_vocab USING fts5vocab(main, turns_fts, 'row')`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.deja_vocab_at USING fts5vocab(main, turns_fts, 'instance')`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.deja_stem USING fts5(w, tokenize="porter unicode61 remove_diacritics 2")`,
		`CREATE VIRTUAL TABLE IF NOT EXISTS temp.deja_stem_vocab USING fts5vocab(temp, deja_stem, 'row')`,
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return q, nil, err
		}
	}
	read := map[string]string{}
	var out []Respelling
	for _, w := range typed {
		stem, err := stemOf(ctx, conn, w)
		if err != nil {
			return q, nil, err
		}
		if stem == "" {
			continue
		}
		var n int
		err = conn.QueryRowContext(ctx, `SELECT coalesce(max(doc), 0) FROM temp.deja_vocab WHERE term = ?`, stem).Scan(&n)
		if err != nil {
			return q, nil, err
		}
		if n > 0 {
			continue
		}
		typed := typedAs(q.text, w)
		surface, err := nearestWord(ctx, conn, typed, stem)
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

var wordRun = regexp.MustCompile(`[\p{L}\p{N}]+`)

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

// stemOf is the term the keyword index holds for w: its tokenizer's
// stem, read back from a temporary one-row index.
func stemOf(ctx context.Context, conn *sql.Conn, w string) (string, error) {
	if _, err := conn.ExecContext(ctx, `DELETE FROM temp.deja_stem`); err != nil {
		return "", err
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO temp.deja_stem(w) VALUES (?)`, w); err != nil {
		return "", err
	}
	var stem string
	err := conn.QueryRowContext(ctx, `SELECT term FROM temp.deja_stem_vocab LIMIT 1`).Scan(&stem)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return stem, err
}

// nearestWord is the word as some turn writes it that is nearest to the
// typed word within maxEdits, or "" when there is none. Stems in the vocabulary
// that start with the stem's first letter and are near it are the
// candidates; for the nearest few, a turn that holds the stem gives the
// word as written, which is what the distance is measured on (a stem is
// shorter than its word: "castl" is one edit from "cast", "castle" two).
func nearestWord(ctx context.Context, conn *sql.Conn, typed, stem string) (string, error) {
	w := strings.ToLower(typed)
	first, size := utf8.DecodeRuneInString(stem)
	if first == utf8.RuneError && size <= 1 {
		return "", nil
	}
	limit := maxEdits(w) + 1
	rows, err := conn.QueryContext(ctx, `SELECT term, doc FROM temp.deja_vocab WHERE term >= ? AND term < ?`,
		string(first), string(first+1))
	if err != nil {
		return "", err
	}
	type candidate struct {
		term      string
		dist, doc int
	}
	var cands []candidate
	n := utf8.RuneCountInString(stem)
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.term, &c.doc); err != nil {
			rows.Close()
			return "", err
		}
		if d := utf8.RuneCountInString(c.term) - n; d > limit || -d > limit {
			continue
		}
		if c.dist = editDistance(stem, c.term, limit); c.dist <= limit {
			cands = append(cands, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", err
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
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
		surface, d, err := writtenAs(ctx, conn, c.term, typed)
		if err != nil {
			return "", err
		}
		if surface != "" && d < bestDist {
			best, bestDist = surface, d
		}
	}
	return best, nil
}

// writtenAs reads a few turns that hold term and returns their word
// nearest to the typed word, as written there, with its distance (a stem
// stands for several words: "rank" for rank, ranks and ranked). Of words
// as near, the one whose capitals stand where the typed word's do wins
// ("mixpanel" for "mixpanle", not "MIXPANEL").
func writtenAs(ctx context.Context, conn *sql.Conn, term, typed string) (string, int, error) {
	w := strings.ToLower(typed)
	// The instance table finds the turns by the stem itself: a MATCH
	// would stem it again ("checkoutservic" to "checkoutserv").
	rows, err := conn.QueryContext(ctx, `SELECT t.user, t.assistant, t.files, t.commands FROM turns t
		WHERE t.id IN (SELECT DISTINCT doc FROM temp.deja_vocab_at WHERE term = ? LIMIT ?)`, term, surfaceTurns)
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
			for _, tok := range wordRun.FindAllString(text, -1) {
				lower := strings.ToLower(tok)
				if lower == w || !strings.HasPrefix(lower, prefix) {
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
