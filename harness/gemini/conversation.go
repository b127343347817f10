package gemini

import (
	"time"
)

// entry is one message record as the conversation holds it.
type entry struct {
	id    string
	kind  string
	text  string
	time  time.Time
	line  int
	calls []toolCall
}

// conversation is the message list the CLI would load: records keyed by
// id, in the order each id was first written (a JavaScript Map's order, as
// loadConversationRecord builds it).
type conversation struct {
	entries []entry
	index   map[string]int
}

// put adds e, or replaces the record with e's id in place.
func (c *conversation) put(e entry) {
	if e.id != "" {
		if i, ok := c.index[e.id]; ok {
			c.entries[i] = e
			return
		}
		c.index[e.id] = len(c.entries)
	}
	c.entries = append(c.entries, e)
}

// rewind removes the message with the given id and every one after it;
// an id the conversation does not hold clears it all, as the CLI does
// (FORMATS.md §3.3, "$rewindTo").
func (c *conversation) rewind(id string) {
	i, ok := c.index[id]
	if !ok {
		i = 0
	}
	for _, e := range c.entries[i:] {
		delete(c.index, e.id)
	}
	c.entries = c.entries[:i]
}

// reset empties the conversation for a "$set" checkpoint that rebuilds it.
func (c *conversation) reset() {
	c.entries = c.entries[:0]
	clear(c.index)
}
