package store

import "strconv"

// BeforeFirst is how a turn reference names turn -1, the records (files
// added, commands run) before a session's first message.
const BeforeFirst = "before"

// TurnRef is the form every printed turn takes, SESSION/TURN (or
// SESSION/before), so whatever deja prints pastes into 'deja show'.
func TurnRef(session string, turn int) string {
	if turn == -1 {
		return session + "/" + BeforeFirst
	}
	return session + "/" + strconv.Itoa(turn)
}
