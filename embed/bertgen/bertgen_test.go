package bertgen

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/deja-dev/deja/embed"
)

// TestWriteLaysOutAModelOllamaConverts checks what 'ollama create' reads:
// the safetensors header describes every byte of the file, the word
// embeddings are the GloVe vectors of the tokenizer's words, and the
// blocks that would mix words add nothing.
func TestWriteLaysOutAModelOllamaConverts(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, Options{Words: 2000, Context: 128, Suffixes: 100}); err != nil {
		t.Fatal(err)
	}
	var tok struct {
		Model struct {
			Type  string         `json:"type"`
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	readJSON(t, filepath.Join(dir, "tokenizer.json"), &tok)
	if tok.Model.Type != "WordPiece" || tok.Model.Vocab["[CLS]"] != 2 || tok.Model.Vocab["[UNK]"] != 1 {
		t.Fatalf("tokenizer is %s with [CLS]=%d [UNK]=%d, want WordPiece with the BERT specials first", tok.Model.Type, tok.Model.Vocab["[CLS]"], tok.Model.Vocab["[UNK]"])
	}
	var cfg map[string]any
	readJSON(t, filepath.Join(dir, "config.json"), &cfg)
	if cfg["max_position_embeddings"] != float64(128) || cfg["vocab_size"] != float64(len(tok.Model.Vocab)) {
		t.Errorf("config.json says context %v and vocabulary %v, want 128 and %d", cfg["max_position_embeddings"], cfg["vocab_size"], len(tok.Model.Vocab))
	}

	data, err := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(data)
	var header map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	body := data[8+n:]
	end := 0
	tensors := map[string][]float32{}
	for name, raw := range header {
		if name == "__metadata__" {
			continue
		}
		var info struct {
			Dtype   string `json:"dtype"`
			Shape   []int  `json:"shape"`
			Offsets [2]int `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &info); err != nil {
			t.Fatal(err)
		}
		size := 4
		for _, s := range info.Shape {
			size *= s
		}
		if info.Dtype != "F32" || info.Offsets[1]-info.Offsets[0] != size {
			t.Fatalf("%s: %s %v at %v: sizes disagree", name, info.Dtype, info.Shape, info.Offsets)
		}
		end = max(end, info.Offsets[1])
		vals := make([]float32, size/4)
		for i := range vals {
			vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[info.Offsets[0]+4*i:]))
		}
		tensors[name] = vals
	}
	if end != len(body) {
		t.Errorf("tensors cover %d of %d data bytes", end, len(body))
	}
	for _, name := range []string{"encoder.layer.0.attention.output.dense.weight", "encoder.layer.0.output.dense.weight"} {
		for _, x := range tensors[name] {
			if x != 0 {
				t.Fatalf("%s has a non-zero weight: the block would change the GloVe vectors", name)
			}
		}
	}

	words := tensors["embeddings.word_embeddings.weight"]
	want := map[string][]float32{}
	embed.WordVectors(func(w string, vec []float32) bool {
		if w == "tenant" || w == "people" {
			want[w] = append([]float32(nil), vec...)
		}
		return len(want) < 2
	})
	for _, tokName := range []string{"people", "##people"} {
		id, ok := tok.Model.Vocab[tokName]
		if !ok {
			t.Fatalf("%q is not a word piece", tokName)
		}
		row := words[id*hidden : (id+1)*hidden]
		if embed.Cosine(row, want["people"]) < 0.9999 {
			t.Errorf("%q has not the GloVe vector of people", tokName)
		}
	}
	if _, ok := tok.Model.Vocab["tenant"]; ok {
		t.Error(`"tenant" is a word piece though it is not among the 2,000 most frequent words`)
	}
	if id := tok.Model.Vocab["the"]; embedNorm(words[id*hidden:(id+1)*hidden]) != 0 {
		t.Error(`"the" has a vector: the most frequent words must add nothing`)
	}
}

func embedNorm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
