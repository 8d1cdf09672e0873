package cron

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	cronlib "github.com/robfig/cron/v3"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// Kind is how a schedule repeats.
type Kind string

// Schedule kinds.
const (
	// Once fires one time, at Schedule.At.
	Once Kind = "once"
	// Interval fires every Schedule.Every, counted from the previous fire.
	Interval Kind = "interval"
	// Cron fires at the times a cron expression names, in its time zone.
	Cron Kind = "cron"
)

// Schedule is a parsed schedule. Its Spec (with Kind) is what the store
// keeps: an RFC 3339 time, a Go duration or a cron expression.
type Schedule struct {
	// Text is the schedule as the user wrote it.
	Text string
	Kind Kind
	// At is a one-off's time.
	At time.Time
	// Every is an interval's period.
	Every time.Duration
	// Expr is a cron expression, CRON_TZ=ZONE first when it has a zone.
	Expr string

	cron cronlib.Schedule
}

// Forms lists the schedules ParseSchedule accepts, for error messages
// and help texts.
const Forms = `accepted schedules:
  "30m", "every 30m", "every 5s", "every 2h", "every 1d"   recurring interval (s, m, h, d; at least 1s)
  "in 30m", "in 2h"                                       once, after that long
  "every day at 9am", "every 1d at 09:00", "weekdays at 18:30", "every monday 9am"
                                                          recurring at a time of day
  "0 9 * * 1-5", "CRON_TZ=Europe/Paris 0 9 * * 1-5", "@daily"
                                                          5-field cron expression (optionally with a time zone)
  "2026-03-01T09:00:00+01:00", "2026-03-01 09:00"         once, at that time`

// ErrBadSchedule is wrapped by every schedule ParseSchedule refuses.
var ErrBadSchedule = errors.New("invalid schedule")

var (
	durationRe  = lazyre.New(`^(\d*)\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)$`)
	clockRe     = lazyre.New(`^(\d{1,2})(?::(\d{2}))?(am|pm)?$`)
	cronFieldRe = lazyre.New(`^[A-Za-z\d*\-,/?]+$`)
)

// ParseSchedule parses a schedule. now anchors "in 30m"; loc is the zone
// of times of day, of ISO times without an offset and of cron
// expressions without CRON_TZ (nil: time.Local). A schedule it refuses is
// an error wrapping ErrBadSchedule that lists the accepted forms.
func ParseSchedule(text string, now time.Time, loc *time.Location) (Schedule, error) {
	if loc == nil {
		loc = time.Local
	}
	s, err := parseSchedule(strings.TrimSpace(text), now, loc)
	if err != nil {
		return Schedule{}, fmt.Errorf("%w %q: %v\n%s", ErrBadSchedule, text, err, Forms)
	}
	s.Text = strings.TrimSpace(text)
	return s, nil
}

func parseSchedule(text string, now time.Time, loc *time.Location) (Schedule, error) {
	if text == "" {
		return Schedule{}, errors.New("empty")
	}
	lower := strings.ToLower(text)
	rest, every := strings.CutPrefix(lower, "every ")
	if expr, ok := naturalCron(strings.TrimSpace(rest)); ok {
		return cronSchedule(zoned(expr, loc))
	}
	if every {
		d, err := parseDuration(strings.TrimSpace(rest))
		if err != nil {
			return Schedule{}, err
		}
		return Schedule{Kind: Interval, Every: d}, nil
	}
	if after, ok := strings.CutPrefix(lower, "in "); ok {
		d, err := parseDuration(strings.TrimSpace(after))
		if err != nil {
			return Schedule{}, err
		}
		return Schedule{Kind: Once, At: now.Add(d)}, nil
	}
	if looksLikeCron(text) {
		if !strings.HasPrefix(text, "CRON_TZ=") && !strings.HasPrefix(text, "TZ=") && !strings.HasPrefix(text, "@every") {
			text = zoned(text, loc)
		}
		return cronSchedule(text)
	}
	if t, ok := parseTime(text, loc); ok {
		return Schedule{Kind: Once, At: t}, nil
	}
	if d, err := parseDuration(lower); err == nil {
		return Schedule{Kind: Interval, Every: d}, nil
	}
	return Schedule{}, errors.New("not a form hermes knows")
}

// parseDuration reads "30m", "2h", "1d", "5s", or a bare unit ("hour").
func parseDuration(s string) (time.Duration, error) {
	m := durationRe.Get().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a duration such as 30s, 30m, 2h or 1d", s)
	}
	n := 1
	if m[1] != "" {
		var err error
		if n, err = strconv.Atoi(m[1]); err != nil || n < 1 {
			return 0, fmt.Errorf("%q: the period must be at least 1", s)
		}
	}
	unit := time.Minute
	switch m[2][0] {
	case 's':
		unit = time.Second
	case 'h':
		unit = time.Hour
	case 'd':
		unit = 24 * time.Hour
	}
	return time.Duration(n) * unit, nil
}

// daySpec is the cron day-of-week field of a natural day word.
func daySpec(w string) (string, bool) {
	switch w {
	case "day", "daily", "everyday", "1d":
		return "*", true
	case "weekday", "weekdays":
		return "1-5", true
	case "weekend", "weekends":
		return "0,6", true
	}
	for i, names := range [...][]string{
		{"sunday", "sun"}, {"monday", "mon"}, {"tuesday", "tue", "tues"}, {"wednesday", "wed"},
		{"thursday", "thu", "thur", "thurs"}, {"friday", "fri"}, {"saturday", "sat"},
	} {
		for _, n := range names {
			if w == n {
				return strconv.Itoa(i), true
			}
		}
	}
	return "", false
}

// naturalCron turns "day at 9am", "weekdays 18:30", "monday, friday at
// noon" into a cron expression.
func naturalCron(rest string) (string, bool) {
	tokens := strings.Fields(strings.ReplaceAll(rest, ",", " "))
	var days []string
	i := 0
	for ; i < len(tokens); i++ {
		if tokens[i] == "and" {
			continue
		}
		d, ok := daySpec(tokens[i])
		if !ok {
			break
		}
		days = append(days, d)
	}
	if len(days) == 0 || i == len(tokens) {
		return "", false
	}
	clock := tokens[i:]
	if clock[0] == "at" {
		clock = clock[1:]
	}
	h, m, ok := parseClock(strings.Join(clock, ""))
	if !ok {
		return "", false
	}
	dow := strings.Join(days, ",")
	if strings.Contains(dow, "*") {
		dow = "*"
	}
	return fmt.Sprintf("%d %d * * %s", m, h, dow), true
}

// parseClock reads "9am", "9:30pm", "14:00", "noon", "midnight".
func parseClock(s string) (hour, minute int, ok bool) {
	switch s {
	case "noon", "midday":
		return 12, 0, true
	case "midnight":
		return 0, 0, true
	}
	m := clockRe.Get().FindStringSubmatch(s)
	if m == nil {
		return 0, 0, false
	}
	hour, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		minute, _ = strconv.Atoi(m[2])
	}
	if m[3] != "" {
		if hour < 1 || hour > 12 {
			return 0, 0, false
		}
		hour %= 12
		if m[3] == "pm" {
			hour += 12
		}
	}
	return hour, minute, hour <= 23 && minute <= 59
}

func looksLikeCron(s string) bool {
	if strings.HasPrefix(s, "@") {
		return true
	}
	f := strings.Fields(s)
	if len(f) > 0 && (strings.HasPrefix(f[0], "CRON_TZ=") || strings.HasPrefix(f[0], "TZ=")) {
		f = f[1:]
	}
	if len(f) != 5 {
		return false
	}
	for _, x := range f {
		if !cronFieldRe.Get().MatchString(x) {
			return false
		}
	}
	return true
}

// zoned puts expr in loc's zone, unless loc is the process's own zone
// with no name to store.
func zoned(expr string, loc *time.Location) string {
	if loc == time.Local && loc.String() == "Local" {
		return expr
	}
	return "CRON_TZ=" + loc.String() + " " + expr
}

func cronParser() cronlib.Parser {
	return cronlib.NewParser(cronlib.Minute | cronlib.Hour | cronlib.Dom | cronlib.Month | cronlib.Dow | cronlib.Descriptor)
}

func cronSchedule(expr string) (Schedule, error) {
	c, err := cronParser().Parse(expr)
	if err != nil {
		return Schedule{}, err
	}
	return Schedule{Kind: Cron, Expr: expr, cron: c}, nil
}

// parseTime reads an ISO time: RFC 3339, or a date and time without an
// offset in loc.
func parseTime(s string, loc *time.Location) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, true
	}
	for _, layout := range [...]string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Spec is what the store keeps of the schedule, read back by
// ScheduleFromSpec.
func (s Schedule) Spec() string {
	switch s.Kind {
	case Once:
		return s.At.UTC().Format(time.RFC3339Nano)
	case Interval:
		return s.Every.String()
	}
	return s.Expr
}

// ScheduleFromSpec rebuilds a stored schedule.
func ScheduleFromSpec(text string, kind Kind, spec string) (Schedule, error) {
	var s Schedule
	var err error
	switch kind {
	case Once:
		var t time.Time
		t, err = time.Parse(time.RFC3339Nano, spec)
		s = Schedule{Kind: Once, At: t}
	case Interval:
		var d time.Duration
		d, err = time.ParseDuration(spec)
		if err == nil && d < time.Second {
			err = fmt.Errorf("period %s is under a second", d)
		}
		s = Schedule{Kind: Interval, Every: d}
	case Cron:
		s, err = cronSchedule(spec)
	default:
		err = fmt.Errorf("unknown kind %q", kind)
	}
	if err != nil {
		return Schedule{}, fmt.Errorf("stored schedule %q (%s %q): %w", text, kind, spec, err)
	}
	s.Text = text
	return s, nil
}

// Next is the first fire strictly after t; zero when there is none (a
// one-off whose time has passed).
func (s Schedule) Next(t time.Time) time.Time {
	switch s.Kind {
	case Once:
		if s.At.After(t) {
			return s.At
		}
		return time.Time{}
	case Interval:
		return t.Add(s.Every)
	case Cron:
		return s.cron.Next(t)
	}
	return time.Time{}
}

// First is the first fire of a schedule set up at now: a one-off's time
// (even if just past, so a job added late still runs within its grace),
// or the next fire after now.
func (s Schedule) First(now time.Time) time.Time {
	if s.Kind == Once {
		return s.At
	}
	return s.Next(now)
}

// Period is the time between two fires around t (0 for a one-off).
func (s Schedule) Period(t time.Time) time.Duration {
	switch s.Kind {
	case Interval:
		return s.Every
	case Cron:
		a := s.cron.Next(t)
		return s.cron.Next(a).Sub(a)
	}
	return 0
}

// Grace bounds and the grace of a schedule: a fire missed by less than
// half its period (at least MinGrace, at most MaxGrace) still runs.
const (
	MinGrace = 2 * time.Minute
	MaxGrace = 2 * time.Hour
)

// Grace is how late a fire may run: half the period, within [MinGrace,
// MaxGrace].
func (s Schedule) Grace(t time.Time) time.Duration {
	return min(max(s.Period(t)/2, MinGrace), MaxGrace)
}

// Describe says in words when the schedule fires.
func (s Schedule) Describe() string {
	switch s.Kind {
	case Once:
		return "once at " + s.At.Format(time.RFC3339)
	case Interval:
		return "every " + s.Every.String()
	}
	return "cron " + s.Expr
}
