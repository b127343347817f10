package gemini

import (
	"time"

	"github.com/deja-dev/deja/harness"
)

// entry is one message record as the conversation holds it.
type entry struct {
	kind  string
	text  string
	time  time.Time
	line  int
	calls []toolCall
}

// conversation is the message list the CLI would load: records keyed by
// id, in the order each id was first written (a JavaScript Map's order, as
// loadConversationRecord builds it), each id kept as its harness.Key. E
// is what it keeps of a record: the record itself, or where its last copy
// lies (a Prescan's skeleton).
type conversation[E any] struct {
	entries []E
	keys    []harness.Key
	index   map[harness.Key]int
}

// put adds e as the record id, or replaces the record with that id in
// place.
func (c *conversation[E]) put(id string, e E) {
	k := harness.KeyOf(id)
	if k != (harness.Key{}) {
		if i, ok := c.index[k]; ok {
			c.entries[i] = e
			return
		}
		if c.index == nil {
			c.index = map[harness.Key]int{}
		}
		c.index[k] = len(c.entries)
	}
	c.entries = append(c.entries, e)
	c.keys = append(c.keys, k)
}

// rewind removes the message with the given id and every one after it;
// an id the conversation does not hold clears it all, as the CLI does
// (FORMATS.md §3.3, "$rewindTo").
func (c *conversation[E]) rewind(id string) {
	i, ok := c.index[harness.KeyOf(id)]
	if !ok || id == "" {
		i = 0
	}
	for _, k := range c.keys[i:] {
		delete(c.index, k)
	}
	clear(c.entries[i:])
	c.entries, c.keys = c.entries[:i], c.keys[:i]
}

// reset empties the conversation for a "$set" checkpoint that rebuilds it.
func (c *conversation[E]) reset() { c.rewind("") }
