package continuedev

import (
	"strings"

	json "github.com/deja-dev/deja/internal/jsonlimit"
)

// docNode is a node of the extensions' editor state, a TipTap document:
// doc > paragraph > text | mention, codeBlock, promptBlock, image
// (gui/src/components/mainInput/TipTapEditor). A code block's attrs.item
// is the context item of the code it holds.
type docNode struct {
	Type    string    `json:"type"`
	Text    string    `json:"text"`
	Attrs   docAttrs  `json:"attrs"`
	Content []docNode `json:"content"`
}

type docAttrs struct {
	Label          string   `json:"label"`
	RenderInlineAs *string  `json:"renderInlineAs"`
	Item           *docItem `json:"item"`
}

type docItem struct {
	Name string `json:"name"`
	URI  *struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"uri"`
}

// readEditor reads an entry's editorState. The extensions write the
// TipTap document the prompt was typed in; cn writes the message content
// again (extensions/cli/src/session.ts modifySessionBeforeSave), which
// says nothing new and is skipped.
func (p *parser) readEditor(it *item) {
	raw := p.raw()
	if len(raw) == 0 || raw[0] != '{' {
		return
	}
	var doc docNode
	if json.Unmarshal(raw, &doc) != nil || doc.Type != "doc" {
		return
	}
	it.typed, it.attached = typedPrompt(doc, it.attached)
}

// typedPrompt is the prompt as typed, the way processEditorContent
// (gui/.../TipTapEditor/utils/processEditorContent.ts) turns the document
// into the message's text, less what the editor put in for the user: a
// paragraph is its text with each mention as its label (or the text it
// renders inline as), its start trimmed, and paragraphs join with line
// breaks; a prompt block (a slash command or prompt file) is its name
// after a '/'. A code block, highlighted code the message carries as a
// fenced block, is not typed: its file is added to attached. Images are
// not text.
func typedPrompt(doc docNode, attached []string) (string, []string) {
	var paras []string
	for _, n := range doc.Content {
		switch n.Type {
		case "paragraph":
			var b strings.Builder
			for _, c := range n.Content {
				switch c.Type {
				case "text":
					b.WriteString(c.Text)
				case "mention":
					if c.Attrs.RenderInlineAs != nil {
						b.WriteString(*c.Attrs.RenderInlineAs)
					} else {
						b.WriteString(c.Attrs.Label)
					}
				}
			}
			if t := strings.TrimLeft(b.String(), " \t\r\n"); t != "" {
				paras = append(paras, t)
			}
		case "promptBlock":
			if it := n.Attrs.Item; it != nil && it.Name != "" {
				paras = append(paras, "/"+it.Name)
			}
		case "codeBlock":
			if it := n.Attrs.Item; it != nil && it.URI != nil && it.URI.Type == "file" && it.URI.Value != "" {
				attached = append(attached, it.URI.Value)
			}
		}
	}
	return strings.Join(paras, "\n"), attached
}
