// Package bertgen writes a small BERT sentence-embedding model, in the
// Hugging Face layout that 'ollama create' converts, whose vectors mean
// something: its word pieces are the words of deja's built-in GloVe table
// with their GloVe vectors, and its attention and feed-forward blocks add
// nothing (their output weights are zero), so a text's embedding is the
// mean of its words' layer-normalised GloVe vectors. deja's integration
// tests serve it through a real Ollama, where no model can be downloaded.
package bertgen

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/deja-dev/deja/embed"
)

// Options shape the model; zero values take the defaults.
type Options struct {
	// Words is how many GloVe words, most frequent first, are word pieces;
	// 0 means 30,000.
	Words int
	// Context is the model's context in tokens (max_position_embeddings,
	// which Ollama reports as <arch>.context_length); 0 means 512.
	Context int
	// Stop is how many of the most frequent words get a zero vector, as
	// function words carry no meaning; 0 means 40.
	Stop int
	// Suffixes is how many of the most frequent words also serve as
	// continuation pieces ("##word"), so that unknown compounds split into
	// known words; 0 means 5,000.
	Suffixes int
}

const (
	hidden       = 100 // GloVe's width
	heads        = 4
	intermediate = 16
	layers       = 1
)

var specials = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}

// Write writes config.json, modules.json, tokenizer.json,
// tokenizer_config.json and model.safetensors into dir, creating it.
// 'ollama create NAME' with a Modelfile of "FROM dir" makes it a model.
func Write(dir string, o Options) error {
	if o.Words <= 0 {
		o.Words = 30000
	}
	if o.Context <= 0 {
		o.Context = 512
	}
	if o.Stop <= 0 {
		o.Stop = 40
	}
	if o.Suffixes <= 0 {
		o.Suffixes = 5000
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tokens, vectors, err := vocabulary(o)
	if err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "config.json"), map[string]any{
		"architectures":            []string{"BertModel"},
		"model_type":               "bert",
		"hidden_size":              hidden,
		"num_hidden_layers":        layers,
		"num_attention_heads":      heads,
		"intermediate_size":        intermediate,
		"max_position_embeddings":  o.Context,
		"layer_norm_eps":           1e-12,
		"vocab_size":               len(tokens),
		"type_vocab_size":          2,
		"hidden_act":               "gelu",
		"pooling_mode_mean_tokens": true,
	}); err != nil {
		return err
	}
	// ollama create uploads files by base name, so a 1_Pooling/config.json
	// would replace config.json: the pooling mode lives in config.json and
	// the Pooling module's path is ".". An empty path leaves the pooling
	// type unset, and the runner panics.
	if err := writeJSON(filepath.Join(dir, "modules.json"), []map[string]any{
		{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
		{"idx": 1, "name": "1", "path": ".", "type": "sentence_transformers.models.Pooling"},
		{"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
	}); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "tokenizer_config.json"), map[string]any{
		"do_lower_case": true, "model_max_length": o.Context, "tokenizer_class": "BertTokenizer",
		"pad_token": "[PAD]", "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]", "mask_token": "[MASK]",
	}); err != nil {
		return err
	}
	if err := writeTokenizer(filepath.Join(dir, "tokenizer.json"), tokens); err != nil {
		return err
	}
	return writeWeights(filepath.Join(dir, "model.safetensors"), vectors, o.Context)
}

// vocabulary returns the word pieces, specials first, and each one's
// vector (nil for a zero vector).
func vocabulary(o Options) ([]string, [][]float32, error) {
	tokens := append([]string(nil), specials...)
	vectors := make([][]float32, len(specials))
	seen := map[string]bool{}
	for _, s := range specials {
		seen[s] = true
	}
	type word struct {
		text string
		vec  []float32
	}
	var words []word
	err := embed.WordVectors(func(w string, vec []float32) bool {
		if len(words) == o.Words {
			return false
		}
		if w == "" || strings.ContainsFunc(w, func(r rune) bool { return r <= ' ' }) || strings.HasPrefix(w, "##") {
			return true
		}
		words = append(words, word{w, append([]float32(nil), vec...)})
		return true
	})
	if err != nil {
		return nil, nil, err
	}
	add := func(tok string, vec []float32) {
		if !seen[tok] {
			seen[tok] = true
			tokens = append(tokens, tok)
			vectors = append(vectors, vec)
		}
	}
	for rank, w := range words {
		var vec []float32
		if rank >= o.Stop {
			vec = w.vec
		}
		add(w.text, vec)
	}
	// Continuation pieces: every single-character word, then the most
	// frequent words, with the vector of the word itself.
	for rank, w := range words {
		if utf8.RuneCountInString(w.text) == 1 && rank >= o.Stop {
			add("##"+w.text, w.vec)
		}
	}
	for rank, w := range words[:min(o.Suffixes, len(words))] {
		if rank >= o.Stop {
			add("##"+w.text, w.vec)
		}
	}
	return tokens, vectors, nil
}

func writeTokenizer(path string, tokens []string) error {
	vocab := make(map[string]int, len(tokens))
	for i, t := range tokens {
		vocab[t] = i
	}
	var added []map[string]any
	for i, s := range specials {
		added = append(added, map[string]any{
			"id": i, "content": s, "single_word": false, "lstrip": false, "rstrip": false,
			"normalized": false, "special": true,
		})
	}
	return writeJSON(path, map[string]any{
		"version":        "1.0",
		"added_tokens":   added,
		"normalizer":     map[string]any{"type": "BertNormalizer", "lowercase": true, "clean_text": true, "handle_chinese_chars": true},
		"pre_tokenizer":  map[string]any{"type": "BertPreTokenizer"},
		"post_processor": nil,
		"decoder":        map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{
			"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab,
		},
	})
}

// tensor is one safetensors entry: its shape and how to write its F32
// values in order.
type tensor struct {
	name  string
	shape []int
	fill  func(put func(float32) error) error
}

func constant(v float32, n int) func(func(float32) error) error {
	return func(put func(float32) error) error {
		for range n {
			if err := put(v); err != nil {
				return err
			}
		}
		return nil
	}
}

func writeWeights(path string, vectors [][]float32, context int) error {
	ts := []tensor{
		{"embeddings.word_embeddings.weight", []int{len(vectors), hidden}, func(put func(float32) error) error {
			for _, v := range vectors {
				for d := range hidden {
					x := float32(0)
					if v != nil {
						x = v[d]
					}
					if err := put(x); err != nil {
						return err
					}
				}
			}
			return nil
		}},
		{"embeddings.position_embeddings.weight", []int{context, hidden}, constant(0, context*hidden)},
		{"embeddings.token_type_embeddings.weight", []int{2, hidden}, constant(0, 2*hidden)},
		{"embeddings.LayerNorm.weight", []int{hidden}, constant(1, hidden)},
		{"embeddings.LayerNorm.bias", []int{hidden}, constant(0, hidden)},
	}
	for i := range layers {
		p := fmt.Sprintf("encoder.layer.%d.", i)
		for _, n := range []string{"query", "key", "value"} {
			ts = append(ts,
				tensor{p + "attention.self." + n + ".weight", []int{hidden, hidden}, constant(0, hidden*hidden)},
				tensor{p + "attention.self." + n + ".bias", []int{hidden}, constant(0, hidden)})
		}
		ts = append(ts,
			tensor{p + "attention.output.dense.weight", []int{hidden, hidden}, constant(0, hidden*hidden)},
			tensor{p + "attention.output.dense.bias", []int{hidden}, constant(0, hidden)},
			tensor{p + "attention.output.LayerNorm.weight", []int{hidden}, constant(1, hidden)},
			tensor{p + "attention.output.LayerNorm.bias", []int{hidden}, constant(0, hidden)},
			tensor{p + "intermediate.dense.weight", []int{intermediate, hidden}, constant(0, intermediate*hidden)},
			tensor{p + "intermediate.dense.bias", []int{intermediate}, constant(0, intermediate)},
			tensor{p + "output.dense.weight", []int{hidden, intermediate}, constant(0, hidden*intermediate)},
			tensor{p + "output.dense.bias", []int{hidden}, constant(0, hidden)},
			tensor{p + "output.LayerNorm.weight", []int{hidden}, constant(1, hidden)},
			tensor{p + "output.LayerNorm.bias", []int{hidden}, constant(0, hidden)})
	}

	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	off := 0
	for _, t := range ts {
		n := 4
		for _, s := range t.shape {
			n *= s
		}
		header[t.name] = map[string]any{"dtype": "F32", "shape": t.shape, "data_offsets": []int{off, off + n}}
		off += n
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	// The data starts 8-byte aligned.
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(len(h)))
	w.Write(buf[:])
	w.Write(h)
	put := func(x float32) error {
		binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(x))
		_, err := w.Write(buf[:4])
		return err
	}
	for _, t := range ts {
		if err := t.fill(put); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
