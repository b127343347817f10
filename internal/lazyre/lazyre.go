// Package lazyre holds regular expressions compiled the first time one is
// matched, not when deja starts. Every deja process links every package,
// and a recall through a running service is mostly that start: compiling
// patterns the process never matches cost it milliseconds.
//
// A pattern that does not compile panics when first used, as
// regexp.MustCompile would at start; cmd/deja's TestPatternsCompile, whose
// test binary links every package deja does, calls CompileAll so that it
// fails there instead.
package lazyre

import (
	"fmt"
	"regexp"
	"slices"
	"sync"
)

// Regexp is a pattern compiled on its first use. Its methods are
// regexp.Regexp's.
type Regexp struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns pattern, to be compiled when first matched.
func New(pattern string) *Regexp {
	r := &Regexp{pattern: pattern}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// Unlisted returns pattern, to be compiled when first matched, without
// listing it for CompileAll: for a table of patterns whose own test
// compiles each. Unlisted is small enough to inline, so a table of them
// is laid out by the compiler instead of built by code at start (New's
// list cost redact's table of secret shapes 6 KB of the binary).
func Unlisted(pattern string) *Regexp { return &Regexp{pattern: pattern} }

// CompileAll compiles every pattern declared in this process and returns
// the first that does not compile, for a package's tests.
func CompileAll() error {
	mu.Lock()
	list := slices.Clone(all)
	mu.Unlock()
	for _, r := range list {
		if _, err := regexp.Compile(r.pattern); err != nil {
			return fmt.Errorf("lazyre: %w", err)
		}
	}
	return nil
}

// Regexp is the compiled pattern.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.pattern) })
	return r.re
}

func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}

func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }

func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}
