package cron_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/cron"
)

func TestParseScheduleForms(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	now := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC) // a Monday
	for _, c := range []struct {
		in   string
		kind cron.Kind
		next time.Time // first fire after now
	}{
		{"30m", cron.Interval, now.Add(30 * time.Minute)},
		{"every 30m", cron.Interval, now.Add(30 * time.Minute)},
		{"every 5s", cron.Interval, now.Add(5 * time.Second)},
		{"every 2h", cron.Interval, now.Add(2 * time.Hour)},
		{"in 45m", cron.Once, now.Add(45 * time.Minute)},
		{"every day at 9am", cron.Cron, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)},
		{"every 1d at 07:30", cron.Cron, time.Date(2026, 3, 3, 7, 30, 0, 0, time.UTC)},
		{"weekdays at 6pm", cron.Cron, time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)},
		{"every saturday noon", cron.Cron, time.Date(2026, 3, 7, 12, 0, 0, 0, time.UTC)},
		{"0 9 * * 1-5", cron.Cron, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)},
		{"CRON_TZ=Europe/Paris 0 9 * * 1-5", cron.Cron, time.Date(2026, 3, 3, 9, 0, 0, 0, paris)}, // 08:00 UTC is 09:00 in Paris: the next is tomorrow
		{"2026-03-01T09:00:00+01:00", cron.Once, time.Time{}},                                     // past: no next fire
		{"2026-04-01 09:00", cron.Once, time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)},
	} {
		s, err := cron.ParseSchedule(c.in, now, time.UTC)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if s.Kind != c.kind || !s.Next(now).Equal(c.next) {
			t.Errorf("%q: %s next %v, want %s %v", c.in, s.Kind, s.Next(now), c.kind, c.next)
		}
		back, err := cron.ScheduleFromSpec(s.Text, s.Kind, s.Spec())
		if err != nil || !back.Next(now).Equal(s.Next(now)) {
			t.Errorf("%q does not survive the store: %v", c.in, err)
		}
	}
}

func TestATimeZoneGivenAppliesToNaturalForms(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	now := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	s, err := cron.ParseSchedule("every day at 9am", now, paris)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 3, 2, 9, 0, 0, 0, paris); !s.Next(now).Equal(want) || !strings.HasPrefix(s.Spec(), "CRON_TZ=Europe/Paris ") {
		t.Fatalf("next %v spec %q", s.Next(now), s.Spec())
	}
}

func TestABadScheduleNamesTheAcceptedForms(t *testing.T) {
	for _, bad := range []string{"", "sometimes", "every 0s", "61 * * * *", "every blue moon", "every day at 25:00"} {
		_, err := cron.ParseSchedule(bad, time.Now(), time.UTC)
		if !errors.Is(err, cron.ErrBadSchedule) || !strings.Contains(err.Error(), "every day at 9am") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestGraceIsHalfThePeriodWithinBounds(t *testing.T) {
	now := time.Now()
	for in, want := range map[string]time.Duration{"every 1s": cron.MinGrace, "every 1h": 30 * time.Minute, "every 1d": cron.MaxGrace, "in 5m": cron.MinGrace} {
		s, _ := cron.ParseSchedule(in, now, time.UTC)
		if got := s.Grace(now); got != want {
			t.Errorf("%s: grace %s, want %s", in, got, want)
		}
	}
}
