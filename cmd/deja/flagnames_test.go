package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagMention is a long flag named in text a user reads: "--name" after a
// space, a quote or a bracket, or at the start.
var flagMention = regexp.MustCompile(`(?:^|[\s'"(\[])--([a-z][a-z0-9-]*[a-z0-9])`)

// otherTools are flags deja's messages name that belong to the programs it
// launches or advises, not to deja.
var otherTools = map[string]bool{
	"restore-chat-history": true, // aider
	"read":                 true, // aider
	"resume":               true, // claude
	"id":                   true, // cline
	"fork":                 true, // cn (Continue)
	"session":              true, // pi, OpenClaw
	"model":                true, // aider
	"clipboard":            true, // xsel
	"input":                true, // xsel
	"prompt":               true, // opencode (deja handoff --to opencode)
	"session-id":           true, // goose session --resume --session-id
	"profile":              true, // hermes --profile NAME --resume
	"resume-id":            true, // kiro-cli chat --resume-id
}

// TestMessagesNameRealFlags reads every string in deja's command sources
// and checks that each --flag it names is one that some deja command
// defines: advice that names a flag nobody has (status once said
// --subagents for --include-subagents) leaves a user at an error.
func TestMessagesNameRealFlags(t *testing.T) {
	known := map[string]bool{"help": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags(), c.InheritedFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&IO{}))

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, m := range flagMention.FindAllStringSubmatch(s, -1) {
				checked++
				if !known[m[1]] && !otherTools[m[1]] {
					t.Errorf("%s: %q names --%s, which no deja command defines", fset.Position(lit.Pos()), s, m[1])
				}
			}
			return true
		})
	}
	if checked < 50 {
		t.Fatalf("checked %d flag mentions; the scan found too few to mean anything", checked)
	}
}
