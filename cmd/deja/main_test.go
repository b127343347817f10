package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"deja": func() { os.Exit(run()) },
	})
}

// TestScripts runs the CLI as a user types it: testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_DATA_HOME", env.WorkDir+"/.local/share")
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("DEJA_EMBED_PROVIDER", "builtin")
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
	})
}
