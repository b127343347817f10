package install

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlMarker ends each line deja adds to a YAML file, so that removing
// them removes exactly those lines.
const yamlMarker = "# added by deja install"

// yamlAddListItem makes item one of the top-level list key (block
// style): a line inserted under the key, or the key and the line
// appended when the file has no such key. src unchanged when the list
// holds item already.
func yamlAddListItem(src []byte, key, item string) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	line := strconv.Quote(item) + " " + yamlMarker
	val, has := doc[key]
	if !has {
		out := string(src)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		out += key + ": " + yamlMarker + "\n  - " + line + "\n"
		return checkYAML(out, key, item)
	}
	list, ok := val.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: is not a list; add %s to it by hand", key, item)
	}
	for _, v := range list {
		if v == item {
			return src, nil
		}
	}
	lines := strings.SplitAfter(string(src), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, key+":") {
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(l, key+":"))
		if rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, fmt.Errorf("%s: is written inline; add %s to it by hand", key, item)
		}
		indent := "  "
		for _, next := range lines[i+1:] {
			t := strings.TrimLeft(next, " ")
			if strings.HasPrefix(t, "- ") || t == "-\n" {
				indent = next[:len(next)-len(t)]
				break
			}
		}
		if !strings.HasSuffix(l, "\n") {
			lines[i] = l + "\n"
		}
		ins := indent + "- " + line + "\n"
		out := strings.Join(lines[:i+1], "") + ins + strings.Join(lines[i+1:], "")
		return checkYAML(out, key, item)
	}
	return nil, fmt.Errorf("%s: is not at the start of a line; add %s to it by hand", key, item)
}

// yamlRemoveMarked takes out the lines yamlAddListItem added.
func yamlRemoveMarked(src []byte) ([]byte, error) {
	lines := strings.SplitAfter(string(src), "\n")
	var out strings.Builder
	changed := false
	for _, l := range lines {
		if strings.HasSuffix(strings.TrimRight(l, "\r\n"), yamlMarker) {
			changed = true
			continue
		}
		out.WriteString(l)
	}
	if !changed {
		return src, nil
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(out.String()), &doc); err != nil {
		return nil, fmt.Errorf("removing deja's lines would leave YAML that does not parse (%v); remove them by hand", err)
	}
	return []byte(out.String()), nil
}

func checkYAML(out, key, item string) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("adding to %s: would leave YAML that does not parse (%v); the file is left as it was", key, err)
	}
	list, _ := doc[key].([]any)
	for _, v := range list {
		if v == item {
			return []byte(out), nil
		}
	}
	return nil, fmt.Errorf("adding %s to %s: did not take; the file is left as it was", item, key)
}

// A yamlField is one key: value line of a YAML map entry install writes,
// in the order it writes them.
type yamlField struct {
	key string
	val any // a string, a bool, an int or a []string
}

// yamlFlow writes v as a YAML flow value: strings double-quoted, lists
// in brackets.
func yamlFlow(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	default:
		return fmt.Sprint(v)
	}
}

// yamlEntryIs reports whether got, an entry as YAML decoded it, holds
// exactly fields.
func yamlEntryIs(got any, fields []yamlField) bool {
	m, ok := got.(map[string]any)
	if !ok || len(m) != len(fields) {
		return false
	}
	for _, f := range fields {
		want := f.val
		if l, ok := want.([]string); ok {
			g, ok := m[f.key].([]any)
			if !ok || len(g) != len(l) {
				return false
			}
			for i := range l {
				if g[i] != l[i] {
					return false
				}
			}
			continue
		}
		if m[f.key] != want {
			return false
		}
	}
	return true
}

// yamlMapEntry is the entry name of the top-level map key in doc, and
// whether there is one.
func yamlMapEntry(doc map[string]any, key, name string) (any, bool) {
	m, ok := doc[key].(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := m[name]
	return v, ok
}

// yamlAddMapEntry makes name an entry of the top-level map key (block
// style) holding fields, every line it writes marked: the lines go in
// under the key, or the key and the lines at the end when the file has no
// such key. An entry install wrote before is rewritten; src comes back
// unchanged when the entry is there as fields say, and an entry of the
// user's own under the same name is left alone, with an error.
func yamlAddMapEntry(src []byte, key, name string, fields []yamlField) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML: %w", err)
	}
	if got, ok := yamlMapEntry(doc, key, name); ok {
		if yamlEntryIs(got, fields) {
			return src, nil
		}
		if !strings.Contains(string(src), yamlMarker) {
			return nil, fmt.Errorf("%s.%s: an entry of your own is there; edit it by hand", key, name)
		}
		old, err := yamlRemoveMarked(src)
		if err != nil {
			return nil, err
		}
		return yamlAddMapEntry(old, key, name, fields)
	}
	if v, has := doc[key]; has && v != nil {
		if _, ok := v.(map[string]any); !ok {
			return nil, fmt.Errorf("%s: is not a map; add %s to it by hand", key, name)
		}
	}
	// The entry goes at the indent of the map's other entries, its
	// fields one step (as deep again) further in.
	block := func(indent string) string {
		var b strings.Builder
		b.WriteString(indent + name + ": " + yamlMarker + "\n")
		for _, f := range fields {
			b.WriteString(indent + indent + f.key + ": " + yamlFlow(f.val) + " " + yamlMarker + "\n")
		}
		return b.String()
	}
	s := string(src)
	if _, has := doc[key]; !has {
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		return checkYAMLEntry(s+key+": "+yamlMarker+"\n"+block("  "), key, name, fields)
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, key+":") {
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(l, key+":"))
		if rest != "" && !strings.HasPrefix(rest, "#") {
			return nil, fmt.Errorf("%s: is written inline; add %s to it by hand", key, name)
		}
		indent := "  "
		for _, next := range lines[i+1:] {
			t := strings.TrimLeft(next, " ")
			if t == "" || t == "\n" || strings.HasPrefix(t, "#") {
				continue
			}
			if len(t) < len(next) {
				indent = next[:len(next)-len(t)]
			}
			break
		}
		if !strings.HasSuffix(l, "\n") {
			lines[i] = l + "\n"
		}
		out := strings.Join(lines[:i+1], "") + block(indent) + strings.Join(lines[i+1:], "")
		return checkYAMLEntry(out, key, name, fields)
	}
	return nil, fmt.Errorf("%s: is not at the start of a line; add %s to it by hand", key, name)
}

func checkYAMLEntry(out, key, name string, fields []yamlField) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("adding %s.%s would leave YAML that does not parse (%v); the file is left as it was", key, name, err)
	}
	if got, ok := yamlMapEntry(doc, key, name); !ok || !yamlEntryIs(got, fields) {
		return nil, fmt.Errorf("adding %s.%s did not take; the file is left as it was", key, name)
	}
	return []byte(out), nil
}

// yamlMapTarget is an agent's MCP server as the entry deja of the
// top-level map key in its YAML config (Goose's extensions, Hermes
// Agent's mcp_servers). Not inlined, as jsonTarget.
//
//go:noinline
func yamlMapTarget(agent, file, key string, fields []yamlField) Target {
	t := Target{Agent: agent, File: file, Entry: key + ".deja",
		add:    func(b []byte) ([]byte, error) { return yamlAddMapEntry(b, key, "deja", fields) },
		remove: yamlRemoveMarked,
	}
	t.has = func(b []byte) bool {
		var doc map[string]any
		if yaml.Unmarshal(b, &doc) != nil {
			return false
		}
		got, ok := yamlMapEntry(doc, key, "deja")
		return ok && yamlEntryIs(got, fields)
	}
	t.present = func(b []byte) bool {
		var doc map[string]any
		if yaml.Unmarshal(b, &doc) != nil {
			return false
		}
		_, ok := yamlMapEntry(doc, key, "deja")
		return ok
	}
	return t
}

// gooseExtension is Goose's stdio extension entry (name, cmd, args,
// enabled, type, timeout in seconds).
func gooseExtension(deja string) []yamlField {
	return []yamlField{{"name", "deja"}, {"cmd", deja}, {"args", []string{"mcp"}}, {"enabled", true}, {"type", "stdio"}, {"timeout", 300}}
}

// hermesServer is Hermes Agent's stdio MCP server entry.
func hermesServer(deja string) []yamlField {
	return []yamlField{{"command", deja}, {"args", []string{"mcp"}}}
}
