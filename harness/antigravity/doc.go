// Package antigravity reads what Google Antigravity leaves readable of its
// conversations: the notices of brain/<conversation>/.system_generated/
// messages and, where it exists, the transcript logs/transcript.jsonl. The
// conversations themselves (conversations/<id>.pb) are encrypted, and so
// is Windsurf's Cascade store (~/.codeium/windsurf/cascade/<id>.pb):
// discovery counts both and says that deja cannot read them, rather than
// showing nothing.
package antigravity
