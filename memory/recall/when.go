package recall

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseWhen reads a time bound as deja's --since and --until flags take it:
// a date (2026-07-17), an RFC 3339 time, or an age such as 36h, 7d or 2w
// before now. endOfDay makes a bare date include that whole day (for an
// upper bound). The empty string is the zero time: no bound.
func ParseWhen(s string, now time.Time, endOfDay bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		if endOfDay {
			t = t.AddDate(0, 0, 1)
		}
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local); err == nil {
		return t, nil
	}
	if n := len(s); n > 1 {
		if v, err := strconv.Atoi(s[:n-1]); err == nil && v >= 0 {
			switch s[n-1] {
			case 'd':
				return now.AddDate(0, 0, -v), nil
			case 'w':
				return now.AddDate(0, 0, -7*v), nil
			}
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a time: use a date (2026-07-17), an RFC 3339 time, or an age such as 36h, 7d or 2w", s)
}
