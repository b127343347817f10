package opencode

import "github.com/deja-dev/deja/internal/jsonscan"

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
					sc.Object(func(key []byte) bool { return p.Input.field(sc, key) })
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
	return ok
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
