package embed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"

	"github.com/ollama/ollama/api"
)

// ollamaError is a failure to use Ollama, phrased for the user: what went
// wrong, what to do about it, and the client's own error for the curious.
type ollamaError struct {
	reason string // "Ollama is not reachable at http://127.0.0.1:11434"
	fix    string // "start it with 'ollama serve'"
	err    error
}

func (e *ollamaError) Error() string {
	return fmt.Sprintf("ollama: %s: %s (%v)", e.reason, e.fix, e.err)
}

func (e *ollamaError) Unwrap() error { return e.err }

// retryable reports whether a failed request may succeed if sent again: a
// dropped connection or a server error. A refused connection means Ollama
// is not running, a 4xx that the request is wrong, and a timeout that
// waiting longer is the user's call; none of these get better by retrying.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var status api.StatusError
	if errors.As(err, &status) {
		return status.StatusCode >= 500
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// explain turns a client error into one that says what to do next. A
// cancelled or expired ctx is the caller's doing and is returned as is.
func (o *Ollama) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("ollama: %w", ctx.Err())
	}
	var status api.StatusError
	isStatus := errors.As(err, &status)
	e := &ollamaError{err: err}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		e.reason = fmt.Sprintf("no answer from %s within %s", o.host, o.timeout)
		e.fix = "raise embed.timeout or lower embed.batch"
	case errors.Is(err, syscall.ECONNREFUSED):
		e.reason = "Ollama is not reachable at " + o.host
		e.fix = "start it with 'ollama serve'"
	case isStatus && status.StatusCode == http.StatusNotFound:
		e.reason = fmt.Sprintf("model %q is not pulled into the Ollama at %s", o.model, o.host)
		e.fix = "run 'ollama pull " + o.model + "'"
	case isStatus && status.StatusCode >= 500:
		e.reason = fmt.Sprintf("Ollama at %s failed with status %d", o.host, status.StatusCode)
		e.fix = "see the Ollama server log"
	case isStatus:
		e.reason = fmt.Sprintf("Ollama at %s refused the request with status %d", o.host, status.StatusCode)
		e.fix = fmt.Sprintf("check that embed.model %q is an embedding model", o.model)
	case retryable(ctx, err):
		e.reason = "the connection to Ollama at " + o.host + " kept dropping"
		e.fix = "check that Ollama is running ('ollama serve')"
	default:
		e.reason = "cannot talk to Ollama at " + o.host
		e.fix = "check ollama.host and OLLAMA_HOST"
	}
	return e
}
