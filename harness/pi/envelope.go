package pi

import (
	"strings"
)

// stripEnvelope returns the words a person typed to OpenClaw, without
// what the gateway wrapped them in before the agent saw them: "System:"
// notice lines, labelled blocks of untrusted metadata
// ("Sender (untrusted metadata):" and a fenced JSON object, or
// "Untrusted context (…):" and lines up to a blank one) and a "[Sun 2026-04-19 21:12 MDT]" stamp before the text.
// Text with nothing else left is returned as it was, so no message is
// lost to the stripping.
func stripEnvelope(text string) string {
	rest := text
	for {
		rest = strings.TrimLeft(rest, " \t\r\n")
		line, after, _ := strings.Cut(rest, "\n")
		line = strings.TrimRight(line, " \r")
		switch {
		case strings.HasPrefix(line, "System: "):
			rest = after
		case strings.HasSuffix(line, ":") && (strings.Contains(line, "(untrusted") || strings.HasPrefix(line, "Untrusted ")):
			rest = skipBlock(after)
		case stampLen(line) > 0:
			rest = rest[stampLen(line):]
		default:
			if strings.TrimSpace(rest) == "" || rest == text {
				return text
			}
			return strings.TrimRight(rest, " \t\r\n")
		}
	}
}

// skipBlock passes over a metadata block's body: a fenced block through
// its closing fence, or lines up to the first blank one.
func skipBlock(s string) string {
	if strings.HasPrefix(s, "```") {
		_, body, ok := strings.Cut(s, "\n")
		if !ok {
			return ""
		}
		for body != "" {
			line, after, _ := strings.Cut(body, "\n")
			body = after
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				return body
			}
		}
		return ""
	}
	for s != "" {
		line, after, _ := strings.Cut(s, "\n")
		s = after
		if strings.TrimSpace(line) == "" {
			return s
		}
	}
	return ""
}

// stampLen is the length of a leading "[Sun 2026-04-19 21:12 MDT] "
// stamp on line (a weekday, a date, a time and a zone in brackets, and
// the space after), 0 when there is none.
func stampLen(line string) int {
	if len(line) < 22 || line[0] != '[' {
		return 0
	}
	end := strings.IndexByte(line, ']')
	if end < 0 || end > 64 {
		return 0
	}
	fields := strings.Fields(line[1:end])
	if len(fields) < 3 || len(fields[0]) != 3 || !isDate(fields[1]) || !isClock(fields[2]) {
		return 0
	}
	n := end + 1
	if n < len(line) && line[n] == ' ' {
		n++
	}
	return n
}

func isDate(s string) bool {
	return len(s) == 10 && s[4] == '-' && s[7] == '-' && digits(s[:4]) && digits(s[5:7]) && digits(s[8:])
}

func isClock(s string) bool {
	return len(s) >= 5 && s[2] == ':' && digits(s[:2]) && digits(s[3:5])
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// stripDirectives takes off the reply directives an OpenClaw answer may
// open with, which its channels act on and never show: [[reply_to_current]],
// [[reply_to:<id>]] and [[audio_as_voice]] (OpenClaw's channel docs,
// "reply threading tags").
func stripDirectives(text string) string {
	rest := strings.TrimLeft(text, " \t\r\n")
	for range 8 {
		if !strings.HasPrefix(rest, "[[") {
			break
		}
		end := strings.Index(rest, "]]")
		if end < 0 || end > 128 {
			break
		}
		tag := rest[2:end]
		if tag != "reply_to_current" && tag != "audio_as_voice" && !strings.HasPrefix(tag, "reply_to:") {
			break
		}
		rest = strings.TrimLeft(rest[end+2:], " \t\r\n")
	}
	if len(rest) == len(strings.TrimLeft(text, " \t\r\n")) {
		return text
	}
	return rest
}
