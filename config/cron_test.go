package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCronBlockDefaultsAndValues(t *testing.T) {
	c := Default()
	if c.Cron.RunTimeout() != 10*time.Minute || c.Cron.Parallel() != 4 || c.Cron.Delivery() != 30*time.Second {
		t.Fatalf("defaults %v %d %v", c.Cron.RunTimeout(), c.Cron.Parallel(), c.Cron.Delivery())
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("cron:\n  timeout: 60\n  max_parallel_jobs: 2\n  timezone: Europe/Paris\n"), 0o600)
	c, err := Load(home, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := c.Cron.Location()
	if c.Cron.RunTimeout() != time.Minute || c.Cron.Parallel() != 2 || loc.String() != "Europe/Paris" || len(c.Warnings) != 0 {
		t.Fatalf("loaded %+v %v", c.Cron, c.Warnings)
	}
}

func TestCronBlockRefusesBadValues(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("cron:\n  timeout: -1\n  timezone: Mars/Olympus\n"), 0o600)
	_, err := Load(home, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "cron.timeout") || !strings.Contains(err.Error(), "cron.timezone") {
		t.Fatalf("err %v", err)
	}
}
