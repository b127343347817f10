package aider

import (
	"bytes"
	"strings"

	"github.com/deja-dev/deja/harness"
)

// What aider writes of how a command the user ran ended (commands.py,
// run_cmd.py at v0.86): /git's output, whole, as one tool write;
// "Added N lines of output to the chat." after /test only when the exit
// status was not 0; an error line when the command could not be started.
// aider never writes an exit status, nor (since v0.54.0) /run's output.
var (
	runErrors = [][]byte{
		[]byte("Error occurred while running command "), // run_cmd.py, OSError
		[]byte("Error running command: "),               // commands.py before v0.54
	}
	gitError     = []byte("Error running /git command: ")
	linesOfOuput = []byte(" of output to the chat.")
	// noExactMatch names a file a SEARCH/REPLACE block of the reply failed
	// to match (editblock_coder.py apply_edits); no block of the reply
	// was then reported applied.
	noExactMatch = []byte("## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in ")
)

// gitOutputMax bounds the /git output a parse holds while reading it; a
// longer one is left out rather than kept in part.
const gitOutputMax = 256 << 10

// ranCommand is the command a user block ran: "run", "test" or "git" and
// the block's line (its record's), and /git's output as it is read.
type ranCommand struct {
	kind string
	line int
	// reading: the output's write goes on in the lines that follow;
	// started: its first line was read; over: it passed gitOutputMax.
	reading, started, over bool
	out                    []byte
}

// commandOutput reads a tool line that follows the command just run,
// reporting whether it told how the command ended.
func (p *parser) commandOutput(text []byte, complete bool) bool {
	c := &p.cmd
	switch {
	case c.kind == "git" && !c.started:
		if bytes.HasPrefix(text, gitError) {
			p.commandEnded(harness.Outcome{Status: harness.Failed})
			return true
		}
		c.started = true
		c.out = append(c.out[:0], text...)
		if complete {
			p.endCommand()
		} else {
			c.reading = true
		}
		return true
	case c.kind == "git":
		return false
	case hasAnyPrefix(text, runErrors):
		p.commandEnded(harness.Outcome{Status: harness.Failed})
		return true
	case c.kind == "test" && bytes.HasPrefix(text, []byte("Added ")) && bytes.HasSuffix(text, linesOfOuput):
		// cmd_test adds the output to the chat on a non-zero exit alone.
		p.commandEnded(harness.Outcome{Status: harness.Failed})
		return true
	}
	return false
}

// toolContinues reads an unprefixed line of a multi-line tool write: part
// of /git's output, or of a report of SEARCH/REPLACE blocks that failed.
func (p *parser) toolContinues(line []byte) {
	c := &p.cmd
	if !c.reading {
		// A report written a line at a time can sit in a write aider
		// left open (">   "), its lines still "> ".
		p.failedBlock(bytes.TrimRight(bytes.TrimPrefix(line, toolPrefix), " "))
		return
	}
	switch {
	case p.stripped && (len(line) == 0 || isUserLine(line) || isToolLine(line)),
		!p.stripped && p.prevBlank && isUserLine(line) && bytes.HasSuffix(line, hardBreak):
		p.endCommand()
		return
	case !p.stripped && p.endsWrite(line):
		p.addOutput(line[:len(line)-len(hardBreak)])
		p.endCommand()
		return
	}
	p.addOutput(line)
}

func (p *parser) addOutput(line []byte) {
	c := &p.cmd
	if c.over || len(c.out)+len(line)+1 > gitOutputMax {
		c.over, c.out = true, nil
		return
	}
	c.out = append(append(c.out, '\n'), line...)
}

// endCommand gives the command the output read, if any, and forgets it.
func (p *parser) endCommand() {
	c := p.cmd
	if c.kind == "git" && c.started && !c.over {
		// aider strips the output before it writes it: trailing spaces
		// are the two it adds.
		p.commandEnded(harness.Outcome{Output: harness.ClipOutput(p.clean(strings.TrimRight(string(c.out), " \t\r\n")))})
		return
	}
	p.cmd = ranCommand{}
}

// commandEnded sets the outcome of the command's record, still in the
// session being read: the turn is the same, so no piece handed it over.
func (p *parser) commandEnded(o harness.Outcome) {
	line := p.cmd.line
	p.cmd = ranCommand{}
	recs := p.sess.Records
	for i := len(recs) - 1; i >= 0 && recs[i].Line >= line; i-- {
		if recs[i].Kind == CommandRecord && recs[i].Line == line {
			recs[i].Outcome = o
			return
		}
	}
}

// failedBlock records a file whose SEARCH/REPLACE block failed to match,
// as a failed edit, reporting whether text named one.
func (p *parser) failedBlock(text []byte) bool {
	f, ok := bytes.CutPrefix(text, noExactMatch)
	if !ok || len(bytes.TrimSpace(f)) == 0 {
		return false
	}
	v := p.clean(normalizeFile(strings.TrimSpace(string(f)), p.historyDir))
	p.sess.Records = append(p.sess.Records, Record{Kind: FileRecord, Value: v, Action: harness.Edited, Turn: p.turn, Line: p.line, Outcome: harness.Outcome{Status: harness.Failed}})
	return true
}

// applied adds the record of an "Applied edit to" line, written as the
// line names the file: one record per block of the reply that aider
// applied to it, with the block's text, or one without when none shows.
func (p *parser) applied(r Record, written string) {
	r.Outcome.Status = harness.Succeeded
	if !p.blocksRead {
		p.blocks, p.blocksRead = editBlocks(p.lastAssistant), true
	}
	spans := appliedSpans(p.blocks, written)
	if len(spans) == 0 {
		p.sess.Records = append(p.sess.Records, r)
		return
	}
	for _, sp := range spans {
		r.Span = sp
		p.sess.Records = append(p.sess.Records, r)
	}
}

func hasAnyPrefix(b []byte, prefixes [][]byte) bool {
	for _, pre := range prefixes {
		if bytes.HasPrefix(b, pre) {
			return true
		}
	}
	return false
}
