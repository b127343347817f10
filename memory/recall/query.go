package recall

import (
	"strings"
	"unicode"

	"github.com/deja-dev/deja/embed"
	"github.com/deja-dev/deja/internal/lazyre"
)

// query is a recall query taken apart for the keyword index.
type query struct {
	text string
	// exact are the parts the user means literally: quoted text, paths,
	// commands, code identifiers. When there are any, a turn must contain
	// all of them, and the keyword list weighs more in hybrid fusion.
	exact []string
	// words are the other meaningful words, any of which may match.
	words []string
	// guessed are the exact parts deja only guessed the user meant
	// literally: a command with no argument ("docker image smaller"), a
	// word in capitals ("API"). One that no turn mentions is read as
	// words instead (see demote); every other exact part must be found.
	guessed map[string]bool
}

var (
	quoted = lazyre.New(`"([^"]+)"|` + "`([^`]+)`")
	// A path has a slash, or ends in a file extension (query.go, app.test.ts).
	pathLike = lazyre.New(`^[\w.~-]*(/[\w.*-]+)+/?$|^[\w-]+(\.[\w-]+)*\.[A-Za-z][A-Za-z0-9]{0,5}$|^\./`)
	// An identifier has an inner capital (WithTenant, getUser), an
	// underscore, or :: / () / a dot between words (http.Client).
	identLike = lazyre.New(`^[a-z]+[A-Z]\w*$|^[A-Z][a-z0-9]+[A-Z]\w*$|^\w+_\w+$|::|\(\)$|^[A-Za-z_]\w*\.[A-Za-z_]\w*\(?\)?$|^[A-Z][A-Z0-9_]{2,}$`)
)

// commandWords start the commands people ask aider to run.
var commandWords = map[string]bool{
	"go": true, "git": true, "npm": true, "npx": true, "yarn": true, "pnpm": true, "make": true,
	"pytest": true, "python": true, "python3": true, "pip": true, "uv": true, "cargo": true,
	"docker": true, "kubectl": true, "node": true, "bun": true, "deno": true, "ls": true,
	"cat": true, "grep": true, "rm": true, "mkdir": true, "cd": true, "bash": true, "sh": true,
	"mvn": true, "gradle": true, "dotnet": true, "flutter": true, "dart": true, "ruff": true,
	"mypy": true, "poetry": true, "composer": true, "php": true, "rails": true, "bundle": true,
	"aider": true, "curl": true, "terraform": true, "helm": true, "jest": true, "vitest": true,
}

// parseQuery finds the exact parts of a query and its other words.
func parseQuery(text string) query {
	q := query{text: strings.TrimSpace(text)}
	rest := quoted.ReplaceAllStringFunc(q.text, func(m string) string {
		q.exact = append(q.exact, strings.Trim(m, "\"`"))
		return " "
	})
	fields := strings.Fields(rest)
	if len(fields) >= 2 && (commandWords[fields[0]] || unknownProgram(fields)) && looksLikeCommand(fields) {
		cmd := strings.Join(fields, " ")
		q.exact = append(q.exact, cmd)
		if !hasArgument(fields) {
			q.guess(cmd)
		}
		return q
	}
	for _, f := range fields {
		f = strings.TrimRight(f, ",;:!?")
		f = strings.TrimSuffix(f, ".")
		switch {
		case f == "":
		case pathLike.MatchString(f) || identLike.MatchString(f):
			q.exact = append(q.exact, f)
			if guessedLiteral(f) {
				q.guess(f)
			}
		default:
			quote := strings.ContainsAny(f, "'’")
			for _, w := range words(f) {
				if !stopword[w] && !(quote && apostropheTail[w]) {
					q.words = append(q.words, w)
				}
			}
		}
	}
	return q
}

func (q *query) guess(part string) {
	if q.guessed == nil {
		q.guessed = map[string]bool{}
	}
	q.guessed[part] = true
}

// allCaps is a word in capitals with no digit or underscore: an acronym
// (API, JSON, HTTP) more often than a constant.
var allCaps = lazyre.New(`^[A-Z]+$`)

// guessedLiteral reports an exact-looking word that is as likely prose: an
// acronym, or a dotted abbreviation such as "e.g".
func guessedLiteral(f string) bool {
	return allCaps.MatchString(f) || (!strings.Contains(f, "/") && len(f) <= 3)
}

// flagLike is a command-line flag: -u, --force, -Name, --out=dir.
var flagLike = lazyre.New(`^--?[A-Za-z][\w-]*(=\S*)?$`)

// programLike is a program's or a cmdlet's name: journalctl, Get-Service.
var programLike = lazyre.New(`^[A-Za-z][\w.-]*$`)

// unknownProgram reports a command whose program is not in commandWords:
// a first word that no dictionary holds (journalctl, Get-Service, not
// "fix" or "add"), followed by a flag, with no English function word
// among them. Such a command is as literal as "go test ./...": one that
// no turn mentions finds nothing, where read as words it found turns
// that merely talk about shells.
func unknownProgram(fields []string) bool {
	if !programLike.MatchString(fields[0]) || embed.KnownWord(fields[0]) {
		return false
	}
	flag := false
	for _, f := range fields {
		if stopword[strings.ToLower(f)] {
			return false
		}
		flag = flag || flagLike.MatchString(f)
	}
	return flag
}

// hasArgument reports a command with something only a command has after
// its name: a flag, a path, an assignment ("go test ./...", "ls -la").
func hasArgument(fields []string) bool {
	for _, f := range fields[1:] {
		if strings.HasPrefix(f, "-") || strings.ContainsAny(f, "./=:") {
			return true
		}
	}
	return false
}

// demote returns the query with part read as words: a guessed part that
// no turn mentions ("docker image smaller" was not a command).
func (q query) demote(part string) query {
	out := q
	out.exact = nil
	for _, e := range q.exact {
		if e != part {
			out.exact = append(out.exact, e)
		}
	}
	out.words = append([]string(nil), q.words...)
	for _, w := range words(part) {
		if !stopword[w] {
			out.words = append(out.words, w)
		}
	}
	return out
}

// looksLikeCommand tells "go test ./..." from "go through the tests" and
// "python script in utils.py": a command holds no English function word
// unless it has a flag, and something in a long one looks like an
// argument.
func looksLikeCommand(fields []string) bool {
	flag := false
	prose := false
	for _, f := range fields[1:] {
		flag = flag || strings.HasPrefix(f, "-")
		prose = prose || stopword[strings.ToLower(f)]
	}
	if stopword[strings.ToLower(fields[1])] || (prose && !flag) {
		return false
	}
	if len(fields) == 2 {
		return true
	}
	return hasArgument(fields) || len(fields) <= 3
}

// isExact reports a query the user means literally.
func (q query) isExact() bool { return len(q.exact) > 0 }

// words splits text into the lower-case words the keyword index holds
// (unicode61: letters and digits; everything else separates).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// joinedWords is words(s) joined by single spaces: a service keeps the
// words of every turn's question this way, one string a turn rather than
// a string header a word (nextWord reads them back).
func joinedWords(s string) string { return strings.Join(words(s), " ") }

// nextWord splits the first word off joined words: the word and the
// rest, or ok false when none is left.
func nextWord(joined string) (word, rest string, ok bool) {
	if joined == "" {
		return "", "", false
	}
	if i := strings.IndexByte(joined, ' '); i >= 0 {
		return joined[:i], joined[i+1:], true
	}
	return joined, "", true
}

// phrase quotes text as one FTS5 phrase: its words in order. Quoting every
// word keeps user text from ever being read as FTS5 syntax.
func phrase(text string) string {
	ws := words(text)
	if len(ws) == 0 {
		return ""
	}
	return `"` + strings.Join(ws, " ") + `"`
}

// maxTerms bounds the words of a natural-language query that the keyword
// index matches on: the expression below grows with the combinations of
// half the words.
const maxTerms = 8

// match is the FTS5 expression for the query: every exact part as a
// phrase, all required; else at least half of the words (any one of one or
// two words), written as an OR of AND groups so FTS5 itself keeps a single
// common word from making a hit. Empty when nothing in the query can match.
func (q query) match() string {
	var parts []string
	if q.isExact() {
		for _, e := range q.exact {
			if p := phrase(e); p != "" {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, " AND ")
	}
	terms := q.terms()
	if len(terms) > maxTerms {
		terms = terms[:maxTerms]
	}
	for i, t := range terms {
		terms[i] = `"` + t + `"`
	}
	need := (len(terms) + 1) / 2
	if need <= 1 {
		return strings.Join(terms, " OR ")
	}
	for _, group := range combinations(terms, need) {
		parts = append(parts, "("+strings.Join(group, " AND ")+")")
	}
	return strings.Join(parts, " OR ")
}

// combinations returns every k-element subset of items, in order.
func combinations(items []string, k int) [][]string {
	var out [][]string
	var pick func(start int, chosen []string)
	pick = func(start int, chosen []string) {
		if len(chosen) == k {
			out = append(out, append([]string(nil), chosen...))
			return
		}
		for i := start; i <= len(items)-(k-len(chosen)); i++ {
			pick(i+1, append(chosen, items[i]))
		}
	}
	pick(0, nil)
	return out
}

// terms are the distinct words of a natural-language query, for coverage.
func (q query) terms() []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range q.words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// stopword holds English function words and the filler of recall queries
// ("that bug where…"), which match everywhere and mean nothing.
var stopword = toSet(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how i if in into is it its itself just me more
most my no nor not now of off on once only or other our ours out over own same she should so some
such than that the their theirs them then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours
thing things stuff something somehow remember remembered time times did done way ways one ones
`)

// apostropheTail is what the keyword index leaves of an apostrophe's tail
// ("Caroline's" is caroline and s, "don't" don and t): dropped from a word
// that had an apostrophe, which otherwise matched most turns, and kept
// alone ("vitamin d").
var apostropheTail = toSet(`s t d ll m re ve`)

func toSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// anyWord is the FTS5 expression for any one of the query's other words,
// or empty when it has none.
func (q query) anyWord() string {
	terms := q.terms()
	if len(terms) > maxTerms {
		terms = terms[:maxTerms]
	}
	for i, t := range terms {
		terms[i] = `"` + t + `"`
	}
	return strings.Join(terms, " OR ")
}
