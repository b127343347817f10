package embed

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"
)

// RefusedError is Embed's answer when the model refused some texts even
// cut shorter: those texts have nil vectors, every other text of the call
// has its vector. A caller that stores vectors keeps the others and records
// the refused texts, to try them again only when Revision changes.
type RefusedError struct {
	Model string
	Texts []Refusal
}

// Refusal is one text the model refused: its index in the texts given to
// Embed, and why, in words for the user.
type Refusal struct {
	Index  int
	Reason string
}

func (e *RefusedError) Error() string {
	if len(e.Texts) == 1 {
		return fmt.Sprintf("ollama: model %q refused 1 text: %s", e.Model, e.Texts[0].Reason)
	}
	return fmt.Sprintf("ollama: model %q refused %d texts, the first %s", e.Model, len(e.Texts), e.Texts[0].Reason)
}

// Revisioned is an embedder that can say which version of its model and
// of deja's way of fitting texts to it produced a refusal: a text refused
// under one revision is worth trying again under another.
type Revisioned interface {
	Revision() string
}

// fitRevision names this version of how deja cuts texts for Ollama; change
// it when cutting changes, so refused texts are tried again.
const fitRevision = "fit-1"

// Revision returns deja's fitting revision, deja's build and the time the
// model was last created or pulled, once Check or Embed has asked Ollama.
func (o *Ollama) Revision() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.revision
}

// dejaVersion is the running deja's module version and VCS revision, when
// the build recorded them.
var dejaVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			v += "+" + s.Value
		}
	}
	return v
})

// refusedInput reports whether err is Ollama refusing what was sent (a 4xx
// other than 404, which means the model is missing), as opposed to Ollama
// being down or failing.
func refusedInput(err error) bool {
	var status api.StatusError
	if !errors.As(err, &status) {
		return false
	}
	return status.StatusCode >= 400 && status.StatusCode < 500 && status.StatusCode != http.StatusNotFound
}

// refusalReason phrases a refusal for the summary of an index run.
func refusalReason(err error) string {
	var status api.StatusError
	if errors.As(err, &status) {
		msg := strings.TrimSpace(status.ErrorMessage)
		if strings.Contains(msg, "context length") {
			return "longer than the model's context even when cut"
		}
		if msg != "" {
			return fmt.Sprintf("refused by Ollama (%d %s)", status.StatusCode, msg)
		}
		return fmt.Sprintf("refused by Ollama (status %d)", status.StatusCode)
	}
	return err.Error()
}
