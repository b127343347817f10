package recall

import (
	"strconv"
	"strings"
	"time"

	"github.com/deja-dev/deja/internal/lazyre"
)

// period is a stretch of time a query names ("in July 2022", "last
// week", "on 3 May, 2023"): [from, to). Recall ranks turns asked in it
// higher (see blend); it never leaves a turn out, as --since and --until
// do, because people misremember when.
type period struct {
	from, to time.Time
}

var (
	monthNames = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)`
	// 3 May 2023, 3rd of May, 2023
	dayMonthYear = lazyre.New(`\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthNames + `\.?,?\s+(\d{4})\b`)
	// May 3, 2023
	monthDayYear = lazyre.New(`\b` + monthNames + `\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b`)
	// July 2022
	monthYear = lazyre.New(`\b` + monthNames + `\.?,?\s+(?:of\s+)?(\d{4})\b`)
	// in March (the last March up to now)
	inMonth = lazyre.New(`\b(in|during|since|from|early|late|mid)\s+(?:the\s+)?` + monthNames + `\b`)
	// 2023-05-03
	isoDay = lazyre.New(`\b(\d{4})-(\d{2})-(\d{2})\b`)
	// in 2023
	inYear = lazyre.New(`\b(in|during|since|from)\s+(\d{4})\b`)
	// 3 days ago, two weeks ago
	ago = lazyre.New(`\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+(day|week|month|year)s?\s+ago\b`)
	// last week, this month, past year
	relative = lazyre.New(`\b(yesterday|today|(?:last|this|past|previous)\s+(?:week|month|year|weekend))\b`)
)

var monthNumber = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
	"sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

var countWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "a few": 3, "a couple of": 2,
}

// queryPeriod finds the first stretch of time the query names, the most
// precise reading first, relative ones counted from now in its location.
// A bare month ("in March") is the last such month that began by now.
// ok is false when the query names none.
func queryPeriod(text string, now time.Time) (p period, ok bool) {
	t := strings.ToLower(text)
	loc := now.Location()
	day := func(y int, m time.Month, d int) (period, bool) {
		from := time.Date(y, m, d, 0, 0, 0, 0, loc)
		if from.Month() != m || d < 1 { // 31 February
			return period{}, false
		}
		return period{from, from.AddDate(0, 0, 1)}, true
	}
	year := func(s string) (int, bool) {
		y, err := strconv.Atoi(s)
		return y, err == nil && y >= 1970 && y <= 2200
	}
	if m := dayMonthYear.FindStringSubmatch(t); m != nil {
		if y, good := year(m[3]); good {
			d, _ := strconv.Atoi(m[1])
			return day(y, monthNumber[m[2]], d)
		}
	}
	if m := monthDayYear.FindStringSubmatch(t); m != nil {
		if y, good := year(m[3]); good {
			d, _ := strconv.Atoi(m[2])
			return day(y, monthNumber[m[1]], d)
		}
	}
	if m := isoDay.FindStringSubmatch(t); m != nil {
		if y, good := year(m[1]); good {
			mo, _ := strconv.Atoi(m[2])
			d, _ := strconv.Atoi(m[3])
			if mo >= 1 && mo <= 12 {
				return day(y, time.Month(mo), d)
			}
		}
	}
	if m := monthYear.FindStringSubmatch(t); m != nil {
		if y, good := year(m[2]); good {
			from := time.Date(y, monthNumber[m[1]], 1, 0, 0, 0, 0, loc)
			return period{from, from.AddDate(0, 1, 0)}, true
		}
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	// "since 2023" and "from March" run to now.
	onward := func(word string, p period) period {
		if word == "since" || word == "from" {
			p.to = today.AddDate(0, 0, 1)
		}
		return p
	}
	if m := inYear.FindStringSubmatch(t); m != nil {
		if y, good := year(m[2]); good {
			from := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
			return onward(m[1], period{from, from.AddDate(1, 0, 0)}), true
		}
	}
	if m := inMonth.FindStringSubmatch(t); m != nil {
		from := time.Date(now.Year(), monthNumber[m[2]], 1, 0, 0, 0, 0, loc)
		if from.After(now) {
			from = from.AddDate(-1, 0, 0)
		}
		return onward(m[1], period{from, from.AddDate(0, 1, 0)}), true
	}
	if m := ago.FindStringSubmatch(t); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			n = countWords[m[1]]
		}
		switch m[2] {
		case "day":
			return period{today.AddDate(0, 0, -n), today.AddDate(0, 0, -n+1)}, true
		case "week":
			return period{today.AddDate(0, 0, -7*n-3), today.AddDate(0, 0, -7*n+4)}, true
		case "month":
			return period{today.AddDate(0, -n, -15), today.AddDate(0, -n, 16)}, true
		default:
			return period{today.AddDate(-n, -6, 0), today.AddDate(-n, 6, 0)}, true
		}
	}
	if m := relative.FindStringSubmatch(t); m != nil {
		week := today.AddDate(0, 0, -(int(today.Weekday())+6)%7) // Monday
		month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc)
		yearStart := time.Date(now.Year(), 1, 1, 0, 0, 0, 0, loc)
		f := strings.Fields(m[1])
		switch {
		case f[0] == "yesterday":
			return period{today.AddDate(0, 0, -1), today}, true
		case f[0] == "today":
			return period{today, today.AddDate(0, 0, 1)}, true
		case f[0] == "this":
			switch f[1] {
			case "week":
				return period{week, today.AddDate(0, 0, 1)}, true
			case "weekend":
				return period{week.AddDate(0, 0, 5), week.AddDate(0, 0, 7)}, true
			case "month":
				return period{month, today.AddDate(0, 0, 1)}, true
			default:
				return period{yearStart, today.AddDate(0, 0, 1)}, true
			}
		case f[0] == "past":
			switch f[1] {
			case "week", "weekend":
				return period{today.AddDate(0, 0, -7), today.AddDate(0, 0, 1)}, true
			case "month":
				return period{today.AddDate(0, -1, 0), today.AddDate(0, 0, 1)}, true
			default:
				return period{today.AddDate(-1, 0, 0), today.AddDate(0, 0, 1)}, true
			}
		default: // last, previous
			switch f[1] {
			case "week":
				return period{week.AddDate(0, 0, -7), week}, true
			case "weekend":
				return period{week.AddDate(0, 0, -2), week}, true
			case "month":
				return period{month.AddDate(0, -1, 0), month}, true
			default:
				return period{yearStart.AddDate(-1, 0, 0), yearStart}, true
			}
		}
	}
	return period{}, false
}

// distance is how many days t lies outside the period: 0 within it.
func (p period) distance(t time.Time) float64 {
	switch {
	case t.Before(p.from):
		return p.from.Sub(t).Hours() / 24
	case !t.Before(p.to):
		return t.Sub(p.to).Hours() / 24
	}
	return 0
}
