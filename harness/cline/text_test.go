package cline

import (
	"reflect"
	"strings"
	"testing"
)

func TestTyped(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<task>\nfix it\n</task>", "fix it"},
		{"<task>\nquote </task> inside\n</task>", "quote </task> inside"},
		{"<environment_details>\n# Current Time\n</environment_details>", ""},
		{"\n# task_progress RECOMMENDED\n<feedback>no</feedback>", ""},
		{"[read_file for 'a.go'] Result:\npackage a", ""},
		{"[read_file for 'a.go'] Result:\n" + strings.Repeat("x", nearHeader) + "<feedback>in the file</feedback>", ""},
		{"[write_to_file for 'a.go'] Result:\nThe user denied this operation and provided the following feedback:\n<feedback>\nuse b.go\n</feedback>", "use b.go"},
		{"[plan_mode_respond] Result:\n<user_message>\ngo ahead\n</user_message>\n\n<environment_details>x</environment_details>", "go ahead"},
		{"[TASK RESUMPTION] This task was interrupted.\n<previous_message>\nold\n</previous_message>\nNew instructions for task continuation:\n<user_message>\nnew\n</user_message>", "new"},
		{"[TASK RESUMPTION] This task was interrupted.", ""},
		{"<answer>unclosed", "unclosed"},
	} {
		if got := typed(c.in); got != c.want {
			t.Errorf("typed(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSDKTyped(t *testing.T) {
	for _, c := range []struct {
		in, want string
		files    []string
	}{
		{"plain words", "plain words", nil},
		{`<user_input mode="plan"><mode_notice>Plan mode.</mode_notice>design it</user_input>`, "design it", nil},
		{`<user_command slash="review">look at a.go</user_command>`, "look at a.go", nil},
		{"<user_inputs>kept</user_inputs>", "<user_inputs>kept</user_inputs>", nil},
		{"see\n<file_content path=\"/p/a.go\">\npackage a\n</file_content>", "see", []string{"/p/a.go"}},
		{`<file_content path="/p/b.go">unclosed`, "", []string{"/p/b.go"}},
		{"<user_input mode=\"act\"", "<user_input mode=\"act\"", nil},
	} {
		got, files := sdkTyped(c.in)
		if got != c.want || !reflect.DeepEqual(files, c.files) {
			t.Errorf("sdkTyped(%q) = %q %q, want %q %q", c.in, got, files, c.want, c.files)
		}
	}
}

func TestProse(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"<thinking>hmm</thinking>\nReading it.\n<read_file>\n<path>a.go</path>\n</read_file>", "Reading it."},
		{"<attempt_completion>\n<result>\nAll done.\n</result>\n</attempt_completion>", "All done."},
		{"Compare <b> and <i>.", "Compare <b> and <i>."},
		{"<execute_command><command>ls", ""},
	} {
		if got := prose(c.in); got != c.want {
			t.Errorf("prose(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
