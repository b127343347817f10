package install

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// tomlMarker is the comment line deja writes above a table it adds, so
// that removing the table removes the comment too.
const tomlMarker = "# Added by 'deja install'; 'deja install --uninstall' removes it."

// tomlHeader is the header line of the table name (a dotted key).
func tomlHeader(table string) string { return "[" + table + "]" }

// tomlTableSpan finds table's header line in src and returns the
// offsets of its first line and one past its last (just before the next
// header that is not one of its sub-tables, or the end); ok is false when
// no line is that header.
func tomlTableSpan(src, table string) (start, end int, ok bool) {
	off := 0
	start = -1
	for _, line := range strings.SplitAfter(src, "\n") {
		t := strings.TrimSpace(line)
		if i := strings.Index(t, "#"); i >= 0 && strings.HasPrefix(t, "[") {
			t = strings.TrimSpace(t[:i])
		}
		if strings.HasPrefix(t, "[") {
			name := strings.ReplaceAll(strings.Trim(t, "[]"), " ", "")
			switch {
			case start < 0 && name == table:
				start = off
			case start >= 0 && name != table && !strings.HasPrefix(name, table+"."):
				return start, off, true
			}
		}
		off += len(line)
	}
	return start, len(src), start >= 0
}

// tomlAdd appends table with body (its key = value lines) to the end of
// src, under a marker comment, or replaces the table's lines when it is
// there with other values; src unchanged when it is there as body says.
func tomlAdd(src []byte, table, body string) ([]byte, error) {
	if err := tomlValid(src); err != nil {
		return nil, err
	}
	s := string(src)
	block := tomlHeader(table) + "\n" + body
	if start, end, ok := tomlTableSpan(s, table); ok {
		if s[start:end] == block || strings.TrimRight(s[start:end], "\n") == strings.TrimRight(block, "\n") {
			return src, nil
		}
		out := s[:start] + block + s[end:]
		if end < len(s) && !strings.HasSuffix(block, "\n\n") {
			out = s[:start] + block + "\n" + s[end:]
		}
		return checkTOML(out, table)
	}
	if tomlHas(src, table) {
		return nil, fmt.Errorf("%s is set without a [%s] header (inline or dotted keys); edit it by hand", table, table)
	}
	out := s
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	if out != "" {
		out += "\n"
	}
	return checkTOML(out+tomlMarker+"\n"+block, table)
}

// tomlRemove takes out table, the marker comment above it and the blank
// line tomlAdd put before them; src unchanged when the table is not
// there.
func tomlRemove(src []byte, table string) ([]byte, error) {
	s := string(src)
	start, end, ok := tomlTableSpan(s, table)
	if !ok {
		if tomlHas(src, table) {
			return nil, fmt.Errorf("%s is set without a [%s] header (inline or dotted keys); remove it by hand", table, table)
		}
		return src, nil
	}
	if strings.HasSuffix(s[:start], tomlMarker+"\n") {
		start -= len(tomlMarker) + 1
	}
	if end == len(s) && strings.HasSuffix(s[:start], "\n\n") {
		start--
	}
	out := s[:start] + s[end:]
	if err := tomlValid([]byte(out)); err != nil {
		return nil, fmt.Errorf("removing [%s] would leave a file that does not parse (%v); remove it by hand", table, err)
	}
	return []byte(out), nil
}

func checkTOML(out, table string) ([]byte, error) {
	if err := tomlValid([]byte(out)); err != nil {
		return nil, fmt.Errorf("adding [%s] would leave a file that does not parse (%v); the file is left as it was", table, err)
	}
	if !tomlHas([]byte(out), table) {
		return nil, fmt.Errorf("adding [%s] did not take; the file is left as it was", table)
	}
	return []byte(out), nil
}

func tomlValid(b []byte) error {
	var v map[string]any
	if err := toml.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("not valid TOML: %w", err)
	}
	return nil
}

// tomlHas reports whether the dotted table is set in b.
func tomlHas(b []byte, table string) bool {
	var v any = map[string]any{}
	if toml.Unmarshal(b, &v) != nil {
		return false
	}
	for _, k := range strings.Split(table, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[k]; !ok {
			return false
		}
	}
	return true
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	b, _ := toml.Marshal(map[string]string{"k": s})
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(b)), "k ="))
}
