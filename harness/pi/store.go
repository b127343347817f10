package pi

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/deja-dev/deja/harness"
	"github.com/deja-dev/deja/internal/jsonscan"
)

// maxStore bounds the sessions.json read; the largest seen is 29 KB, and
// one entry is a few KB.
const maxStore = 16 << 20

// Store is what deja reads of OpenClaw's sessions.json, the map from each
// session key ("agent:main:main") to the session it holds now: the key's
// sessionId and, for a subagent's key, the key that spawned it. No other
// field of the file is read (it also holds delivery addresses).
type Store struct {
	keys    map[string]string // sessionId → key
	ids     map[string]string // key → sessionId
	spawned map[string]string // key → spawnedBy key
}

// LoadStore reads the sessions.json in dir, nil when there is none or it
// cannot be read as one.
func LoadStore(dir string) *Store {
	f, err := harness.OpenSide(filepath.Join(dir, "sessions.json"))
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStore+1))
	if err != nil || len(data) > maxStore {
		return nil
	}
	return parseStore(data)
}

func parseStore(data []byte) *Store {
	st := &Store{keys: map[string]string{}, ids: map[string]string{}, spawned: map[string]string{}}
	sc := jsonscan.New(data)
	if sc.Kind() != '{' {
		return nil
	}
	sc.Object(func(key []byte) bool {
		k := jsonscan.Unescape(key)
		if sc.Kind() != '{' {
			return false
		}
		var id, by string
		sc.Object(func(field []byte) bool {
			switch string(field) {
			case "sessionId":
				id = sc.String()
			case "spawnedBy":
				by = sc.String()
			default:
				return false
			}
			return true
		})
		if id != "" {
			st.keys[id] = k
			st.ids[k] = id
		}
		if by != "" {
			st.spawned[k] = by
		}
		return true
	})
	if len(st.ids) == 0 {
		return nil
	}
	return st
}

// Key returns the session key that holds the session now.
func (st *Store) Key(sessionID string) (string, bool) {
	if st == nil || sessionID == "" {
		return "", false
	}
	k, ok := st.keys[sessionID]
	return k, ok
}

// SpawnedBy reports whether the key is a subagent's, and returns the
// session its spawning key holds ("" when that key holds none).
func (st *Store) SpawnedBy(key string) (string, bool) {
	if st == nil {
		return "", false
	}
	by, ok := st.spawned[key]
	if !ok {
		// A subagent's key is agent:<agentId>:subagent:<id>.
		return "", strings.Contains(key, ":subagent:")
	}
	return st.ids[by], true
}
