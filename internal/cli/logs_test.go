package cli

import (
	"testing"
	"time"
)

func TestSinceTakesDurationsDaysDatesAndTimes(t *testing.T) {
	now := time.Date(2026, 12, 6, 9, 30, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Time
	}{
		{"1h", now.Add(-time.Hour)},
		{"90m", now.Add(-90 * time.Minute)},
		{"2d", now.AddDate(0, 0, -2)},
		{"2026-12-01T08:00:00Z", time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)},
		{"2026-12-01", time.Date(2026, 12, 1, 0, 0, 0, 0, time.Local)},
	}
	for _, c := range cases {
		got, err := parseSince(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "soon", "-1h", "1w"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) accepted", bad)
		}
	}
}

func TestLogsRefusesABadLevelOrCount(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{{"logs", "--level", "loud"}, {"logs", "-n", "-1"}} {
		if r := hermes(t, home, "", nil, args...); r.code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, r.code, exitUsage, r.stderr)
		}
	}
}
