package aider

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDiscover builds a small disk layout per case in a temporary directory,
// written as $T below, and checks what Discover finds, why, and what it
// warns about.
func TestDiscover(t *testing.T) {
	const h = HistoryFileName
	tests := []struct {
		name string
		// files are created under $T (content "x" unless the name ends in
		// "/", which makes a directory); links map a link under $T to its
		// target under $T.
		files []string
		links map[string]string
		// projects is the content of $T/aider-projects, $T expanded.
		projects string
		opts     DiscoverOptions
		// want lists sources as "path [kind:from ...]", $T for the test
		// directory; warnings are substrings of the warnings, in order.
		want     []string
		warnings []string
	}{
		{
			name:  "home history",
			files: []string{"home/" + h},
			opts:  DiscoverOptions{Home: "$T/home"},
			want:  []string{"$T/home/" + h + " [home:$T/home]"},
		},
		{
			name:  "no home history is not worth a warning",
			files: []string{"home/"},
			opts:  DiscoverOptions{Home: "$T/home"},
		},
		{
			name:  "home history that is a directory",
			files: []string{"home/" + h + "/"},
			opts:  DiscoverOptions{Home: "$T/home"},
			warnings: []string{
				"$T/home/" + h + " is a directory, not a history file (from home)",
			},
		},
		{
			name:  "absolute AIDER_CHAT_HISTORY_FILE",
			files: []string{"notes/chat.md"},
			opts:  DiscoverOptions{HistoryEnv: "$T/notes/chat.md", WorkDir: "$T/elsewhere"},
			want:  []string{"$T/notes/chat.md [env:$T/notes/chat.md]"},
		},
		{
			name:  "relative AIDER_CHAT_HISTORY_FILE is taken from the working directory",
			files: []string{"proj/logs/chat.md", "logs/chat.md"},
			opts:  DiscoverOptions{HistoryEnv: "logs/chat.md", WorkDir: "$T/proj"},
			want:  []string{"$T/proj/logs/chat.md [env:logs/chat.md]"},
		},
		{
			name: "missing AIDER_CHAT_HISTORY_FILE",
			opts: DiscoverOptions{HistoryEnv: "$T/none.md"},
			warnings: []string{
				"AIDER_CHAT_HISTORY_FILE names $T/none.md, which does not exist yet",
			},
		},
		{
			name:     "AIDER_CHAT_HISTORY_FILE that is a directory",
			files:    []string{"notes/"},
			opts:     DiscoverOptions{HistoryEnv: "$T/notes"},
			warnings: []string{"$T/notes is a directory, not a history file (from AIDER_CHAT_HISTORY_FILE)"},
		},
		{
			name:  "project list with comments, blanks, relative and missing entries",
			files: []string{"app/" + h, "fresh/", "notdir"},
			projects: "# written by deja aider\n\n" +
				"$T/app\n" +
				"   \n" +
				"relative/app\n" +
				"# $T/commented\n" +
				"$T/gone\n" +
				"$T/fresh\n" +
				"$T/notdir\n" +
				"$T/app\n",
			opts: DiscoverOptions{ProjectsFile: "$T/aider-projects"},
			want: []string{"$T/app/" + h + " [project:$T/app]"},
			warnings: []string{
				`$T/aider-projects line 5: "relative/app" is not an absolute path`,
				"$T/aider-projects line 7: project $T/gone no longer exists",
				"$T/aider-projects line 8: $T/fresh/" + h + " does not exist",
				"$T/aider-projects line 9: project $T/notdir is not a directory",
			},
		},
		{
			name: "missing project list is not worth a warning",
			opts: DiscoverOptions{ProjectsFile: "$T/aider-projects"},
		},
		{
			name:     "project list that is a directory",
			files:    []string{"aider-projects/"},
			opts:     DiscoverOptions{ProjectsFile: "$T/aider-projects"},
			warnings: []string{"cannot read the project list $T/aider-projects"},
		},
		{
			name: "root and two levels below, not three",
			files: []string{
				"code/" + h,
				"code/alpha/" + h,
				"code/team/beta/" + h,
				"code/team/beta/deep/" + h,
				"code/team/beta/deep/er/" + h,
			},
			opts: DiscoverOptions{Roots: []string{"$T/code"}},
			want: []string{
				"$T/code/" + h + " [root:$T/code]",
				"$T/code/alpha/" + h + " [root:$T/code]",
				"$T/code/team/beta/" + h + " [root:$T/code]",
			},
		},
		{
			name: "hidden directories and node_modules are not searched",
			files: []string{
				"code/.git/" + h,
				"code/.venv/app/" + h,
				"code/node_modules/pkg/" + h,
				"code/app/node_modules/" + h,
			},
			opts:     DiscoverOptions{Roots: []string{"$T/code"}},
			warnings: []string{"DEJA_AIDER_ROOTS: no " + h + " in $T/code or two levels below it"},
		},
		{
			name:  "root that does not exist, root that is a file",
			files: []string{"file"},
			opts:  DiscoverOptions{Roots: []string{"$T/nope", "$T/file"}},
			warnings: []string{
				"DEJA_AIDER_ROOTS: $T/nope does not exist",
				"DEJA_AIDER_ROOTS: $T/file is a file",
			},
		},
		{
			name:     "history in a root that is a directory",
			files:    []string{"code/app/" + h + "/"},
			opts:     DiscoverOptions{Roots: []string{"$T/code"}},
			warnings: []string{"$T/code/app/" + h + " is a directory, not a history file (from root $T/code)", "DEJA_AIDER_ROOTS: no "},
		},
		{
			name:  "one file reached through a symlink from every place is one source",
			files: []string{"real/app/" + h, "code/"},
			links: map[string]string{"code/app": "real/app"},
			projects: "$T/real/app\n" +
				"$T/code/app\n",
			opts: DiscoverOptions{
				HistoryEnv:   "$T/code/app/" + h,
				ProjectsFile: "$T/aider-projects",
				Roots:        []string{"$T/code", "$T/code/"},
			},
			want: []string{"$T/real/app/" + h + " [env:$T/code/app/" + h + " project:$T/real/app root:$T/code]"},
		},
		{
			name:  "a symlink loop under a root stays within two levels",
			files: []string{"code/" + h},
			links: map[string]string{"code/loop": "code"},
			opts:  DiscoverOptions{Roots: []string{"$T/code"}},
			want:  []string{"$T/code/" + h + " [root:$T/code]"},
		},
		{
			name:  "a dangling symlink is reported",
			files: []string{"code/app/"},
			links: map[string]string{"code/app/" + h: "gone.md"},
			opts:  DiscoverOptions{Roots: []string{"$T/code"}},
			warnings: []string{
				"$T/code/app/" + h + " is a symlink to a file that does not exist (from root $T/code)",
				"DEJA_AIDER_ROOTS: no ",
			},
		},
		{
			name:  "sources are sorted by path, reasons keep the order places are searched",
			files: []string{"z-home/" + h, "a-code/app/" + h},
			links: map[string]string{"a-code/home": "z-home"},
			opts:  DiscoverOptions{Home: "$T/z-home", Roots: []string{"$T/a-code"}},
			want: []string{
				"$T/a-code/app/" + h + " [root:$T/a-code]",
				"$T/z-home/" + h + " [home:$T/z-home root:$T/a-code]",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := resolvedTempDir(t)
			expand := func(s string) string { return strings.ReplaceAll(s, "$T", base) }
			for _, f := range tt.files {
				p := filepath.Join(base, f)
				if strings.HasSuffix(f, "/") {
					makeDir(t, p)
					continue
				}
				makeDir(t, filepath.Dir(p))
				makeFile(t, p, "x")
			}
			for link, target := range tt.links {
				if err := os.Symlink(filepath.Join(base, target), filepath.Join(base, link)); err != nil {
					t.Skipf("cannot make symlinks here: %v", err)
				}
			}
			if tt.projects != "" {
				makeFile(t, filepath.Join(base, "aider-projects"), expand(tt.projects))
			}
			opts := tt.opts
			opts.Home = expand(opts.Home)
			opts.HistoryEnv = expand(opts.HistoryEnv)
			opts.WorkDir = expand(opts.WorkDir)
			opts.ProjectsFile = expand(opts.ProjectsFile)
			opts.Roots = nil
			for _, r := range tt.opts.Roots {
				opts.Roots = append(opts.Roots, expand(r))
			}

			sources, warnings := Discover(opts)

			var got []string
			for _, s := range sources {
				got = append(got, describeSource(s))
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, expand(w))
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("sources:\n got %q\nwant %q", got, want)
			}
			if len(warnings) != len(tt.warnings) {
				t.Fatalf("got %d warnings, want %d:\n%s", len(warnings), len(tt.warnings), strings.Join(warnings, "\n"))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(warnings[i], expand(w)) {
					t.Errorf("warning %d:\n got %s\nwant it to contain %s", i, warnings[i], expand(w))
				}
			}
		})
	}
}

// TestDiscoverSizeAndTime checks that a source carries the file's size and
// modification time, which `deja sources` shows and indexing compares.
func TestDiscoverSizeAndTime(t *testing.T) {
	home := resolvedTempDir(t)
	p := filepath.Join(home, HistoryFileName)
	makeFile(t, p, "# aider chat started at 2024-05-01 10:00:00\n")
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	sources, warnings := Discover(DiscoverOptions{Home: home})
	if len(sources) != 1 || len(warnings) != 0 {
		t.Fatalf("got %v, %v; want one source and no warnings", sources, warnings)
	}
	if s := sources[0]; s.Size != info.Size() || !s.ModTime.Equal(info.ModTime()) {
		t.Errorf("got size %d, time %v; want %d, %v", s.Size, s.ModTime, info.Size(), info.ModTime())
	}
}

// TestDiscoverUnreadableDirectory checks that a directory under a root that
// cannot be listed is reported and the rest of the root still searched. It
// skips where permissions do not stop reading (as root, on Windows).
func TestDiscoverUnreadableDirectory(t *testing.T) {
	base := resolvedTempDir(t)
	locked := filepath.Join(base, "code", "locked")
	makeDir(t, filepath.Join(locked, "app"))
	makeDir(t, filepath.Join(base, "code", "open"))
	makeFile(t, filepath.Join(base, "code", "open", HistoryFileName), "x")
	if err := os.Chmod(locked, 0o000); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if _, err := os.ReadDir(locked); err == nil {
		t.Skip("permissions do not stop this process from reading a mode 000 directory")
	}

	sources, warnings := Discover(DiscoverOptions{Roots: []string{filepath.Join(base, "code")}})
	if len(sources) != 1 || sources[0].Path != filepath.Join(base, "code", "open", HistoryFileName) {
		t.Errorf("got sources %v, want the history in code/open", sources)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "cannot read "+locked) {
		t.Errorf("got warnings %q, want one saying %s cannot be read", warnings, locked)
	}
}

func TestDiscoverOptionsFromEnv(t *testing.T) {
	home := resolvedTempDir(t)
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("AIDER_CHAT_HISTORY_FILE", "notes/chat.md")
	sep := string(filepath.ListSeparator)
	t.Setenv("DEJA_AIDER_ROOTS", "/srv/code"+sep+sep+"~/code"+sep+"~")

	opts := DiscoverOptionsFromEnv("/cfg/deja/aider-projects")

	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	want := DiscoverOptions{
		Home:         home,
		HistoryEnv:   "notes/chat.md",
		WorkDir:      wd,
		ProjectsFile: "/cfg/deja/aider-projects",
		Roots:        []string{"/srv/code", filepath.Join(home, "code"), home},
	}
	if !reflect.DeepEqual(opts, want) {
		t.Errorf("got  %+v\nwant %+v", opts, want)
	}
}

// describeSource renders a source as the test table writes it.
func describeSource(s Source) string {
	var reasons []string
	for _, r := range s.Reasons {
		reasons = append(reasons, string(r.Kind)+":"+r.From)
	}
	return s.Path + " [" + strings.Join(reasons, " ") + "]"
}

// resolvedTempDir is t.TempDir with symlinks resolved, so that expected paths match
// the resolved paths Discover returns where the temporary directory is
// itself behind a link (macOS's /var).
func resolvedTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func makeDir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func makeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
