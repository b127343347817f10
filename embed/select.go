package embed

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// probeTimeout bounds how long auto waits for Ollama before falling back:
// a local Ollama answers /api/version and /api/show in milliseconds, and a
// missing one must not delay every deja command.
const probeTimeout = 1500 * time.Millisecond

// Select returns the embedder opts asks for, with one line for the user
// (to print on stderr) saying which embedder answers and why.
//
// "builtin" never touches the network. "ollama" returns an error that says
// what to do when Ollama is not running or lacks the model. "auto" (and an
// empty Provider) uses Ollama when it answers within a short deadline and
// has the model, and the built-in embedder otherwise.
func Select(ctx context.Context, opts Options) (Embedder, string, error) {
	opts = opts.withDefaults()
	switch opts.Provider {
	case "builtin":
		b, err := NewBuiltin()
		if err != nil {
			return nil, "", err
		}
		return b, fmt.Sprintf("deja: embedding with %s (embed.provider is builtin)", b.Identity()), nil
	case "ollama":
		o, err := NewOllama(opts)
		if err != nil {
			return nil, "", err
		}
		if err := o.Check(ctx); err != nil {
			return nil, "", err
		}
		return o, fmt.Sprintf("deja: embedding with %s at %s", o.Identity(), o.Host()), nil
	case "auto":
		return selectAuto(ctx, opts)
	}
	return nil, "", fmt.Errorf("embed: embed.provider is %q: set it to auto, ollama or builtin", opts.Provider)
}

func selectAuto(ctx context.Context, opts Options) (Embedder, string, error) {
	o, err := NewOllama(opts)
	if err != nil {
		return nil, "", err
	}
	probe, cancel := context.WithTimeout(ctx, probeTimeout)
	err = o.Check(probe)
	cancel()
	if err == nil {
		return o, fmt.Sprintf("deja: embedding with %s at %s", o.Identity(), o.Host()), nil
	}
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	b, berr := NewBuiltin()
	if berr != nil {
		return nil, "", errors.Join(err, berr)
	}
	return b, fmt.Sprintf("deja: embedding with %s (%s)", b.Identity(), fallbackReason(o, err)), nil
}

// fallbackReason says in a few words why auto did not use Ollama and how
// the user could.
func fallbackReason(o *Ollama, err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("Ollama did not answer at %s within %s", o.Host(), probeTimeout)
	}
	var oe *ollamaError
	if errors.As(err, &oe) {
		return fmt.Sprintf("%s; %s to use %s", oe.reason, oe.fix, o.Identity())
	}
	return err.Error()
}
