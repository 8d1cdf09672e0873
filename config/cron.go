package config

import (
	"fmt"
	"time"
)

// Cron holds cron.* keys: how scheduled jobs run.
type Cron struct {
	// Timeout is a run's time limit in seconds (default 600); a job may
	// set its own.
	Timeout int `yaml:"timeout"`
	// MaxParallelJobs bounds the runs going at once (default 4).
	MaxParallelJobs int `yaml:"max_parallel_jobs"`
	// Timezone is the zone of times of day and of cron expressions
	// without CRON_TZ (an IANA name; default the system's).
	Timezone string `yaml:"timezone"`
	// DeliveryTimeout bounds a webhook delivery, in seconds (default 30).
	DeliveryTimeout int `yaml:"delivery_timeout"`
}

// Cron defaults.
const (
	DefaultCronTimeout         = 600
	DefaultCronMaxParallelJobs = 4
	DefaultCronDeliveryTimeout = 30
)

// RunTimeout is cron.timeout as a duration.
func (c Cron) RunTimeout() time.Duration {
	if c.Timeout <= 0 {
		return Seconds(DefaultCronTimeout)
	}
	return Seconds(c.Timeout)
}

// Parallel is cron.max_parallel_jobs with its default.
func (c Cron) Parallel() int {
	if c.MaxParallelJobs <= 0 {
		return DefaultCronMaxParallelJobs
	}
	return c.MaxParallelJobs
}

// Delivery is cron.delivery_timeout as a duration.
func (c Cron) Delivery() time.Duration {
	if c.DeliveryTimeout <= 0 {
		return Seconds(DefaultCronDeliveryTimeout)
	}
	return Seconds(c.DeliveryTimeout)
}

// Location is cron.timezone's zone (time.Local when unset).
func (c Cron) Location() (*time.Location, error) {
	if c.Timezone == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(c.Timezone)
	if err != nil {
		return nil, fmt.Errorf("cron.timezone: %q is not a time zone hermes knows (an IANA name such as Europe/Paris): %w", c.Timezone, err)
	}
	return loc, nil
}

// validateCron checks the cron block's values.
func (c *Config) validateCron(bad func(key, value, allowed string)) {
	for _, r := range []struct {
		key string
		v   int
	}{{"cron.timeout", c.Cron.Timeout}, {"cron.max_parallel_jobs", c.Cron.MaxParallelJobs}, {"cron.delivery_timeout", c.Cron.DeliveryTimeout}} {
		if r.v < 0 {
			bad(r.key, fmt.Sprint(r.v), "a whole number, at least 1 (0 or unset for the default)")
		}
	}
	if _, err := c.Cron.Location(); err != nil {
		bad("cron.timezone", fmt.Sprintf("%q", c.Cron.Timezone), "an IANA time zone such as Europe/Paris")
	}
}
