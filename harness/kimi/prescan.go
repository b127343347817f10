package kimi

import (
	"bytes"
	"io"

	"github.com/deja-dev/deja/harness"
	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// prescanTag marks what this reader's Prescan found.
const prescanTag = "kimi forked 1"

var (
	_ harness.Prescanner  = Reader{}
	_ harness.PieceParser = (*parser)(nil)
)

// prescanTop is what Prescan found: the line of the last forked record
// (0: none) and how many lines it read.
type prescanTop struct {
	Forked, Lines int
}

// Prescan finds a Kimi Code fork's marker, the forked record written
// after the records a fork copied from its source, so that a parse handed
// over in pieces does not hand over the source's turns before it learns
// they were copies. Lines are read whole (r bounds them), but only a line
// of the marker's few bytes is decoded.
func (Reader) Prescan(r io.Reader) (string, error) {
	var top prescanTop
	var err error
	top.Lines, err = harness.PrescanLines(r, func(l *harness.Lines) bool {
		raw := bytes.TrimSpace(l.Line)
		if l.Partial && !json.Valid(raw) {
			return false
		}
		if len(raw) < 256 && isForked(raw) {
			top.Forked = l.Number
		}
		return true
	})
	if err != nil {
		return "", err
	}
	return harness.EncodePrescan(prescanTag, top, nil)
}

// isForked reports a forked record: {"type": "forked", "time": …}.
func isForked(raw []byte) bool {
	var r struct {
		Type string `json:"type"`
	}
	return harness.HasKey(raw, "type") && json.Unmarshal(raw, &r) == nil && r.Type == "forked"
}

// prescanned reads what Prescan found into the parse.
func (p *parser) prescanned(found string) {
	var top prescanTop
	if _, ok := harness.DecodePrescan(found, prescanTag, &top); ok {
		p.ran, p.forked, p.lines = true, top.Forked, top.Lines
	}
}
