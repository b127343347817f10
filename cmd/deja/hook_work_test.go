package main

import "testing"

// TestToolTarget reads the file a tool is about to change, or the command
// it is about to run, from each agent's tool input, and nothing from a
// tool that only reads.
func TestToolTarget(t *testing.T) {
	for _, c := range []struct{ name, input, file, command string }{
		{"Edit", `{"file_path":"/p/a.go","old_string":"x","new_string":"y"}`, "/p/a.go", ""},
		{"MultiEdit", `{"file_path":"b.go","edits":[]}`, "b.go", ""},
		{"NotebookEdit", `{"notebook_path":"/p/n.ipynb","new_source":""}`, "/p/n.ipynb", ""},
		{"write_file", `{"file_path":"c.txt","content":"hi"}`, "c.txt", ""},
		{"replace", `{"file_path":"d.go","old_string":"a","new_string":"b"}`, "d.go", ""},
		{"Read", `{"file_path":"/p/a.go"}`, "", ""},
		{"read_file", `{"absolute_path":"/p/a.go"}`, "", ""},
		{"Grep", `{"pattern":"x","path":"/p"}`, "", ""},
		{"Bash", `{"command":"go vet ./...","description":"vet"}`, "", "go vet ./..."},
		{"run_shell_command", `{"command":"npm test"}`, "", "npm test"},
		{"shell", `{"command":["bash","-lc","cargo build --release"]}`, "", "cargo build --release"},
		{"exec", `{"command":["make","all"]}`, "", "make all"},
		{"apply_patch", `{"command":"*** Begin Patch\n*** Add File: docs/x.md\n+hi\n*** End Patch"}`, "docs/x.md", ""},
		{"apply_patch", `{"input":"*** Begin Patch\n*** Update File: y.go\n*** End Patch"}`, "y.go", ""},
		{"Edit", `not json`, "", ""},
		{"Edit", `{"file_path":42}`, "", ""},
	} {
		file, command := toolTarget(c.name, []byte(c.input))
		if file != c.file || command != c.command {
			t.Errorf("%s %s: (%q, %q), want (%q, %q)", c.name, c.input, file, command, c.file, c.command)
		}
	}
}
