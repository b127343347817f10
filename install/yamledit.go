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
