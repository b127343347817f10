package recall

import (
	"strings"
	"testing"
	"time"
)

// TestParseWhen: every form --since, --until and the service's since and
// until take, each bound where a user would put it.
func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 7, 20, 15, 30, 0, 0, time.Local)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.Local) }
	tests := []struct {
		in       string
		endOfDay bool
		want     time.Time
	}{
		{"", false, time.Time{}},
		{"  ", true, time.Time{}},
		{"2026-07-17", false, day(2026, 7, 17)},
		{"2026-07-17", true, day(2026, 7, 18)},
		{"2026-07-17T09:15:00", false, time.Date(2026, 7, 17, 9, 15, 0, 0, time.Local)},
		{"2026-07-17T09:15:00Z", false, time.Date(2026, 7, 17, 9, 15, 0, 0, time.UTC)},
		{"2026-07-17T09:15:00+02:00", true, time.Date(2026, 7, 17, 7, 15, 0, 0, time.UTC)},
		{"3d", false, now.AddDate(0, 0, -3)},
		{"2w", true, now.AddDate(0, 0, -14)},
		{"0d", false, now},
		{"36h", false, now.Add(-36 * time.Hour)},
		{"90m", false, now.Add(-90 * time.Minute)},
	}
	for _, tt := range tests {
		got, err := ParseWhen(tt.in, now, tt.endOfDay)
		if err != nil {
			t.Errorf("ParseWhen(%q, %v): %v", tt.in, tt.endOfDay, err)
			continue
		}
		if !got.Equal(tt.want) {
			t.Errorf("ParseWhen(%q, %v) = %v, want %v", tt.in, tt.endOfDay, got, tt.want)
		}
	}
	for _, in := range []string{"yesterday", "-3d", "-2h", "3x", "2026-13-01", "d"} {
		_, err := ParseWhen(in, now, false)
		if err == nil {
			t.Errorf("ParseWhen(%q) took it as a time", in)
			continue
		}
		if !strings.Contains(err.Error(), "use a date") {
			t.Errorf("ParseWhen(%q): %v does not say what to write", in, err)
		}
	}
}
