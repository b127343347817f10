package harness

import (
	"strings"
	"unsafe"
)

// Detach copies out of data every string of h that shares its bytes. A
// reader may decode without copying (the JSON decoder's ZeroCopy), and one
// string so kept, a session's project, keeps the whole of data alive for
// as long as the history is: a 250 MB transcript read whole stayed in
// memory through its cutting and embedding. Only the strings that share
// data are copied; the rest are already the history's own.
func Detach(h *History, data []byte) {
	if h == nil || len(data) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	hi := lo + uintptr(len(data))
	own := func(s *string) {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(*s))); len(*s) > 0 && p >= lo && p < hi {
			*s = strings.Clone(*s)
		}
	}
	for i := range h.Sessions {
		s := &h.Sessions[i]
		for _, f := range []*string{&s.ID, &s.Header, &s.Project, &s.Parent, &s.Marker} {
			own(f)
		}
		for j := range s.Messages {
			m := &s.Messages[j]
			own((*string)(&m.Role))
			own(&m.Text)
		}
		for j := range s.Records {
			r := &s.Records[j]
			own((*string)(&r.Kind))
			own(&r.Value)
			own((*string)(&r.Action))
		}
	}
	own(&h.Path)
	for i := range h.Warnings {
		own(&h.Warnings[i])
	}
	for i := range h.Refused {
		own(&h.Refused[i])
	}
}
