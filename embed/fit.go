package embed

import (
	"strings"
	"unicode/utf8"

	"github.com/ollama/ollama/tokenizer"
)

// maxNumCtx caps the context deja asks Ollama to allocate for one text: an
// embedding model that claims a longer context gets this many tokens, which
// is more than one chunk of a turn holds.
const maxNumCtx = 8192

// specialTokens bounds the tokens a tokenizer adds around a text (BOS and
// EOS, [CLS] and [SEP]).
const specialTokens = 3

// fitter cuts texts so that each fits the model's context. Ollama v0.17.4
// cannot be trusted to do it: with truncate it cuts to the token limit,
// turns the tokens back into text and embeds that, and the text re-read
// can hold more tokens than the limit ([UNK] becomes "[", "unk", "]"), so
// a long Japanese or code text is refused with "the input length exceeds
// the context length" although truncate was asked for.
type fitter struct {
	// limit is the most tokens of one text, special tokens included; 0
	// means the model's context is unknown and texts go as they are.
	limit int
	// count, when set, counts a text's tokens exactly as the server does
	// (the model's own WordPiece vocabulary, read from /api/show). Without
	// it a text fits only when its UTF-8 bytes do: no tokenizer Ollama
	// runs makes more than one token of a byte.
	count func(string) int
}

// fits reports whether s, sent as one input, fits the model's context.
func (f *fitter) fits(s string) bool {
	if f.limit <= 0 || len(s)+specialTokens <= f.limit {
		return true
	}
	if f.count == nil {
		return false
	}
	return f.count(s) <= f.limit
}

// pieces cuts body into the fewest parts that each fit the context with
// prefix before them, ending a part at a line break or a space when one is
// in its second half. Each returned text starts with prefix: the model's
// task marker counts against the context like any other token.
func (f *fitter) pieces(prefix, body string) []string {
	var out []string
	for {
		if f.fits(prefix + body) {
			return append(out, prefix+body)
		}
		n := f.longestFit(prefix, body)
		head := body[:n]
		if i := strings.LastIndexByte(head, '\n'); i > n/2 {
			head = head[:i]
		} else if i := strings.LastIndexByte(head, ' '); i > n/2 {
			head = head[:i]
		}
		rest := strings.TrimSpace(body[len(head):])
		if t := strings.TrimSpace(head); t != "" {
			out = append(out, prefix+t)
		}
		if rest == "" {
			return out
		}
		body = rest
	}
}

// longestFit returns the length in bytes of the longest prefix of body, cut
// at a rune boundary, that fits after prefix; at least one rune, so that
// cutting always moves on.
func (f *fitter) longestFit(prefix, body string) int {
	lo, hi := 0, len(body) // body[:lo] fits; body[:hi] does not
	if f.count == nil {
		// The byte bound answers directly.
		lo = max(0, min(len(body), f.limit-specialTokens-len(prefix)))
	}
	for hi-lo > 1 {
		mid := runeStart(body, lo+(hi-lo)/2)
		if mid <= lo {
			mid = runeEnd(body, lo+1)
			if mid >= hi {
				break
			}
		}
		if f.fits(prefix + body[:mid]) {
			lo = mid
		} else {
			hi = mid
		}
	}
	lo = runeStart(body, lo)
	if lo == 0 {
		_, size := utf8.DecodeRuneInString(body)
		return max(size, 1)
	}
	return lo
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runeEnd moves i forward to the next rune start (or the end of s).
func runeEnd(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return min(i, len(s))
}

// wordPieceCounter returns an exact token counter for a model whose
// /api/show model_info (asked for verbose) names a BERT WordPiece
// tokenizer, built as Ollama's own runner builds it; nil for any other
// tokenizer, or when the vocabulary is not in info.
func wordPieceCounter(info map[string]any) func(string) int {
	if m, _ := info["tokenizer.ggml.model"].(string); m != "bert" {
		return nil
	}
	raw, _ := info["tokenizer.ggml.tokens"].([]any)
	if len(raw) == 0 {
		return nil
	}
	values := make([]string, len(raw))
	for i, v := range raw {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		values[i] = s
	}
	vocab := &tokenizer.Vocabulary{
		Values: values,
		AddBOS: boolInfo(info, "tokenizer.ggml.add_bos_token", true),
		AddEOS: boolInfo(info, "tokenizer.ggml.add_eos_token", true),
		BOS:    []int32{int32(firstUint(info, "tokenizer.ggml.cls_token_id", "tokenizer.ggml.bos_token_id"))},
		EOS:    []int32{int32(firstUint(info, "tokenizer.ggml.separator_token_id", "tokenizer.ggml.seperator_token_id", "tokenizer.ggml.eos_token_id"))},
	}
	wp := tokenizer.NewWordPiece(vocab, true)
	return func(s string) int {
		ids, err := wp.Encode(s, true)
		if err != nil {
			return len(s) + specialTokens
		}
		return len(ids)
	}
}

func boolInfo(info map[string]any, key string, def bool) bool {
	if b, ok := info[key].(bool); ok {
		return b
	}
	return def
}

// firstUint returns the first of keys that is set (and non-zero), as the
// runner's cmp.Or does.
func firstUint(info map[string]any, keys ...string) uint64 {
	for _, k := range keys {
		if n, ok := info[k].(float64); ok && n > 0 {
			return uint64(n)
		}
	}
	return 0
}

// contextLength reads "<architecture>.context_length" from /api/show's
// model_info, 0 when it is absent.
func contextLength(info map[string]any) int {
	arch, _ := info["general.architecture"].(string)
	n, _ := info[arch+".context_length"].(float64)
	return int(n)
}
