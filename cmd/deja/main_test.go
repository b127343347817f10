package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deja-dev/deja/internal/racebuild"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// Tests run deja in-process, where a started service would be this
	// test binary: no recall starts one unless a test asks
	// (warm.txtar). Commands testscript runs keep their script's setting.
	if filepath.Base(os.Args[0]) != "deja" {
		os.Setenv("DEJA_SERVE_AUTOSTART", "false")
	}
	testscript.Main(m, map[string]func(){
		"deja": func() { os.Exit(run()) },
	})
}

// TestScripts runs the CLI as a user types it: testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mkbinary": mkbinary, "exits": exits, "jsonout": jsonout,
			"waitserve": waitServe, "waitstopped": waitStopped, "cmprecall": cmpRecall,
			"natsserver": natsServer, "expandenv": expandEnv, "runhook": runHook,
		},
		// [race]: the test binary runs under the race detector; a long
		// script may skip there, as ./test.sh runs it again without it.
		Condition: func(cond string) (bool, error) {
			if cond == "race" {
				return racebuild.Enabled, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_DATA_HOME", env.WorkDir+"/.local/share")
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("DEJA_EMBED_PROVIDER", "builtin")
			env.Setenv("DEJA_SERVE_AUTOSTART", "false")
			env.Setenv("PATH", withoutAgents(env.Getenv("PATH")))
			// testscript hands a command only the environment it builds;
			// GORACE carries ./test.sh's shorter wait at a race-built
			// deja's exit (the detector's default is a second a process).
			if v := os.Getenv("GORACE"); v != "" {
				env.Setenv("GORACE", v)
			}
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
	})
}

// withoutAgents is path without the directories that hold an agent's
// program, so that what 'deja install' finds installed is what a script
// puts in its scratch home, whatever this machine has installed.
func withoutAgents(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		agent := false
		for _, b := range []string{"claude", "codex", "gemini", "qwen", "kimi", "copilot", "cursor-agent", "cursor", "cline", "opencode", "pi", "aider",
			"amp", "droid", "kiro-cli", "crush", "agy", "antigravity", "goose", "hermes", "zed", "zeditor"} {
			if _, err := os.Stat(filepath.Join(dir, b)); err == nil {
				agent = true
			}
		}
		if !agent {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

// hookCommandRE finds the command deja install registered in an agent's
// hooks file.
var hookCommandRE = regexp.MustCompile(`"command": "([^"]* hook [a-z-]+)"`)

// runhook FILE runs, through sh as the agents do, the 'deja hook' command
// 'deja install --hooks' registered in FILE, with the stdin the script
// set, keeping its stdout and stderr for the next stdout/stderr lines.
func runHook(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: runhook FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	m := hookCommandRE.FindSubmatch(data)
	if m == nil {
		ts.Fatalf("no deja hook command in %s", args[0])
	}
	err = ts.Exec("sh", "-c", string(m[1]))
	if neg != (err != nil) {
		ts.Fatalf("%s: %v", m[1], err)
	}
}

// expandenv FILE replaces $NAME and ${NAME} in FILE with the script's
// environment, for inputs that must name a path under $WORK.
func expandEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: expandenv FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(os.Expand(string(data), ts.Getenv)), 0o644))
}

// mkbinary writes a small PNG-like file with NUL bytes, which txtar cannot hold.
func mkbinary(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkbinary FILE")
	}
	data := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00\x00\x00\x01\x00\x08\x06\x00\x00\x00")
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), data, 0o644))
}

// exits N PROGRAM ARGS... runs the program as exec does, keeping its stdout
// and stderr for the next stdout/stderr lines, and fails unless it ends
// with exit code N.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// jsonout KEY=VALUE... parses the last command's stdout as one JSON object
// and checks each field: KEY is a dotted path (results.0.turn), VALUE the
// field printed as Go prints it (strings bare, numbers as 3 or 0.5); KEY
// alone checks that the field is there. It fails on stdout that is not JSON.
func jsonout(ts *testscript.TestScript, neg bool, args []string) {
	var v any
	if err := json.Unmarshal([]byte(ts.ReadFile("stdout")), &v); err != nil {
		ts.Fatalf("stdout is not one JSON value: %v", err)
	}
	for _, a := range args {
		key, want, hasWant := strings.Cut(a, "=")
		got, ok := v, true
		for _, k := range strings.Split(key, ".") {
			switch x := got.(type) {
			case map[string]any:
				got, ok = x[k]
			case []any:
				i, err := strconv.Atoi(k)
				ok = err == nil && i >= 0 && i < len(x)
				if ok {
					got = x[i]
				}
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		match := ok && (!hasWant || fmt.Sprint(got) == want)
		if match == neg {
			ts.Fatalf("jsonout %s: field is %v (present %v)", a, got, ok)
		}
	}
}
