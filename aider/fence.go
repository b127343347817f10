package aider

import "bytes"

// reasoningOpen finds a reasoning block's opening tag at the start of the
// line (after indentation) and returns its position and closing tag.
// aider (v0.76+) writes <thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b>;
// models with a reasoning_tag setting write <think> or their own tag name.
func reasoningOpen(line []byte) (int, []byte) {
	t := bytes.TrimLeft(line, " \t")
	if len(t) < 7 || t[0] != '<' {
		return -1, nil
	}
	at := len(line) - len(t)
	switch {
	case bytes.HasPrefix(t, []byte("<thinking-content-")):
		end := bytes.IndexByte(t, '>')
		if end < 0 {
			return -1, nil
		}
		closer := make([]byte, 0, end+2)
		closer = append(closer, "</"...)
		closer = append(closer, t[1:end+1]...)
		return at, closer
	case bytes.HasPrefix(t, []byte("<think>")):
		return at, []byte("</think>")
	}
	return -1, nil
}

// tagFences are aider's fence pairs after ``` and ```` (base_coder.py
// all_fences), used when the files in the chat already contain backticks.
var tagFences = [][]byte{[]byte("<source"), []byte("<sourcecode"), []byte("<codeblock"), []byte("<code"), []byte("<pre")}

func (p *parser) openFence(line []byte) {
	if len(line) < 3 {
		return
	}
	switch c := line[0]; c {
	case '`', '~':
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n < 3 || (c == '`' && bytes.IndexByte(line[n:], '`') >= 0) {
			return
		}
		p.st, p.fenceChar, p.fenceLen = inFence, c, n
	case '<':
		for _, tag := range tagFences {
			if !bytes.HasPrefix(line, tag) || len(line) == len(tag) {
				continue
			}
			// <source> or <source>python, not <sourcefile …> or <code a=…>.
			if line[len(tag)] != '>' {
				continue
			}
			if bytes.Contains(line[len(tag):], []byte("</")) {
				return
			}
			closer := make([]byte, 0, len(tag)+2)
			closer = append(closer, "</"...)
			closer = append(closer, tag[1:]...)
			closer = append(closer, '>')
			p.st, p.fenceChar, p.closer = inFence, '<', closer
			return
		}
	}
}

func (p *parser) closesFence(line []byte) bool {
	if p.fenceChar == '<' {
		return bytes.HasPrefix(line, p.closer)
	}
	n := 0
	for n < len(line) && line[n] == p.fenceChar {
		n++
	}
	return n >= p.fenceLen && len(bytes.TrimSpace(line[n:])) == 0
}
