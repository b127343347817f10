package aider

import "github.com/deja-dev/deja/harness"

// The session shape is harness's; aider's names for it stay so that the
// parser reads in aider's words.
type (
	Role       = harness.Role
	RecordKind = harness.RecordKind
	Message    = harness.Message
	Record     = harness.Record
	Session    = harness.Session
	History    = harness.History
)

// The roles and record kinds, as aider's parser names them.
const (
	User          = harness.User
	Assistant     = harness.Assistant
	FileRecord    = harness.FileRecord
	CommandRecord = harness.CommandRecord
)
