package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deja-dev/deja/serve"
)

// TestMCPHelpNamesEveryTool: 'deja mcp --help' lists each tool the server
// offers, and says how many, so the help cannot fall behind tools/list.
func TestMCPHelpNamesEveryTool(t *testing.T) {
	ctx := context.Background()
	server := serve.NewMCPServer(&serve.Memory{}, "test")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile(`(?m)^  ([a-z_]+) {2,}`).FindAllStringSubmatch(mcpLong, -1)
	var inHelp []string
	for _, m := range listed {
		inHelp = append(inHelp, m[1])
	}
	if len(inHelp) != len(list.Tools) {
		t.Errorf("the help lists %v, the server %d tools", inHelp, len(list.Tools))
	}
	for _, tool := range list.Tools {
		if !strings.Contains(mcpLong, "\n  "+tool.Name+" ") {
			t.Errorf("the help does not name the tool %q", tool.Name)
		}
	}
	words := map[int]string{1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}
	if !strings.Contains(mcpLong, "gets "+words[len(list.Tools)]+" tools") {
		t.Errorf("the help does not say it offers %d tools", len(list.Tools))
	}
}
