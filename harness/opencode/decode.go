package opencode

import (
	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// The JSON of messages and parts is walked for the few fields deja uses;
// a tool's output, a file's content and a message's summary diffs (which
// can hold whole files: FORMATS.md §4.3) are skipped unread.

// decodeMessage reads a message's JSON (a row's data, or a storage file,
// which adds id and sessionID) into m, reporting false when it is not an
// object.
func decodeMessage(sc *jsonscan.Scanner, data []byte, m *messageInfo) bool {
	sc.Reset(data)
	return sc.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			if s := sc.String(); s != "" {
				m.ID = s
			}
		case "sessionID":
			if s := sc.String(); s != "" {
				m.Session = s
			}
		case "role":
			m.Role = sc.String()
		case "time":
			sc.Object(func(key []byte) bool {
				if string(key) != "created" {
					return false
				}
				if t := sc.Int(); t != 0 {
					m.Created = t
				}
				return true
			})
		case "path":
			sc.Object(func(key []byte) bool {
				if string(key) != "cwd" {
					return false
				}
				m.Cwd = sc.String()
				return true
			})
		default:
			return false
		}
		return true
	})
}

// decodePart reads a part's JSON into p, reporting false when it is not
// an object.
func decodePart(sc *jsonscan.Scanner, data []byte, p *partInfo) bool {
	sc.Reset(data)
	var text []byte
	// A call's output and edit text stay raw (aliasing data) until the
	// tool is known: a read's output, the bulk of a store, is never
	// unescaped.
	var call rawCall
	ok := sc.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			if s := sc.String(); s != "" {
				p.ID = s
			}
		case "messageID":
			if s := sc.String(); s != "" {
				p.Message = s
			}
		case "type":
			p.Type = sc.String()
		case "text":
			// Kept raw until the type is known: a reasoning part's
			// text is not unescaped for nothing.
			text = sc.RawString()
		case "synthetic":
			p.Synthetic = sc.Bool()
		case "ignored":
			p.Ignored = sc.Bool()
		case "tool":
			p.Tool = sc.String()
		case "files":
			sc.Array(func() {
				if f := sc.String(); f != "" {
					p.Files = append(p.Files, f)
				}
			})
		case "state":
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "status":
					p.Status = sc.String()
				case "input":
					sc.Object(func(key []byte) bool { return call.input(sc, key, &p.Input) })
				case "output":
					call.output = sc.RawString()
				case "metadata":
					sc.Object(func(key []byte) bool {
						// exit is null when the command was killed by a
						// signal: no status then.
						if string(key) != "exit" || sc.Kind() == 'n' {
							return false
						}
						call.exit, call.hasExit = int(sc.Int()), true
						return true
					})
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
	if ok && p.Type == "text" {
		p.Text = jsonscan.Unescape(text)
	}
	if ok && p.Type == "tool" {
		call.resolve(p)
	}
	return ok
}

// rawCall is what a tool part holds of its call's result and edit text,
// still escaped.
type rawCall struct {
	output   []byte
	exit     int
	hasExit  bool
	old, new []byte
	replace  bool // oldString or newString was there
	edits    [][2][]byte
	content  []byte
}

func (c *rawCall) input(sc *jsonscan.Scanner, key []byte, in *toolInput) bool {
	switch string(key) {
	case "oldString":
		c.old, c.replace = sc.RawString(), true
	case "newString":
		c.new, c.replace = sc.RawString(), true
	case "content":
		c.content = sc.RawString()
	case "edits":
		sc.Array(func() {
			var e [2][]byte
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "oldString":
					e[0] = sc.RawString()
				case "newString":
					e[1] = sc.RawString()
				default:
					return false
				}
				return true
			})
			c.edits = append(c.edits, e)
		})
	default:
		return in.field(sc, key)
	}
	return true
}

// resolve sets p's outcome and edit text from the call, for the tools
// that make records. A bash call's status comes from its exit status
// alone: "completed" says only that the tool returned. A file tool's
// "completed" or "error" is whether its edit was applied.
func (c *rawCall) resolve(p *partInfo) {
	switch {
	case shellTools[p.Tool]:
		switch {
		case p.Status == "error":
			p.Outcome.Status = harness.Failed
		case p.Status == "completed" && c.hasExit:
			p.Outcome.Status, p.Outcome.Exit = harness.StatusOfExit(c.exit), harness.ExitStatus(c.exit)
		}
		if p.Status == "completed" && len(c.output) > 0 {
			p.Outcome.Output = harness.ClipOutput(jsonscan.Unescape(c.output))
		}
	case editTools[p.Tool]:
		switch p.Status {
		case "completed":
			p.Outcome.Status = harness.Succeeded
		case "error":
			p.Outcome.Status = harness.Failed
		}
		if c.replace {
			p.Spans = append(p.Spans, replacement(c.old, c.new))
		}
		for _, e := range c.edits {
			p.Spans = append(p.Spans, replacement(e[0], e[1]))
		}
		if c.content != nil {
			s, cut := harness.ClipSpan(jsonscan.Unescape(c.content))
			p.Spans = append(p.Spans, harness.Span{New: s, Whole: true, Clipped: cut})
		}
	}
}

func (in *toolInput) field(sc *jsonscan.Scanner, key []byte) bool {
	switch string(key) {
	case "filePath":
		in.FilePath = sc.String()
	case "path":
		in.Path = sc.String()
	case "command":
		in.Command = sc.String()
	case "patchText":
		in.PatchText = sc.String()
	default:
		return false
	}
	return true
}

// decodeSession reads a storage tree's session file.
func decodeSession(sc *jsonscan.Scanner, data []byte, s *sessionInfo) bool {
	sc.Reset(data)
	return sc.Object(func(key []byte) bool {
		switch string(key) {
		case "id":
			s.ID = sc.String()
		case "parentID":
			s.ParentID = sc.String()
		case "directory":
			s.Directory = sc.String()
		case "time":
			sc.Object(func(key []byte) bool {
				switch string(key) {
				case "created":
					s.Created = sc.Int()
				case "updated":
					s.Updated = sc.Int()
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
}

// replacement is the span of one oldString/newString pair.
func replacement(oldRaw, newRaw []byte) harness.Span {
	o, cutOld := harness.ClipSpan(jsonscan.Unescape(oldRaw))
	n, cutNew := harness.ClipSpan(jsonscan.Unescape(newRaw))
	return harness.Span{Old: o, New: n, Clipped: cutOld || cutNew}
}
