package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Platforms delivers to gateway platforms; the gateway implements it.
type Platforms interface {
	// Deliver sends text to a platform's chat (chat "" means the
	// platform's home channel) and returns once it was delivered; an
	// error says it was not (and whether the gateway's ledger keeps
	// retrying it: the error text says so).
	Deliver(ctx context.Context, platform, chat, thread, text string) error
}

// Silent is the answer that delivers nothing: the job had nothing to
// report.
const Silent = "[SILENT]"

// IsSilent reports whether an answer is exactly [SILENT] (spaces aside).
func IsSilent(answer string) bool { return strings.TrimSpace(answer) == Silent }

// ErrNoPlatforms is a platform delivery with no gateway to deliver it.
var ErrNoPlatforms = errors.New("platform delivery needs the gateway (hermes gateway), which is not available here")

// Deliverer sends a run's answer to its target. The zero value delivers
// locally and to webhooks; Platforms adds the gateway's chats.
type Deliverer struct {
	// Platforms delivers to chats; nil makes such deliveries fail with
	// ErrNoPlatforms.
	Platforms Platforms
	// HTTPClient posts to webhooks (default: a client with Timeout).
	HTTPClient *http.Client
	// Timeout bounds one webhook POST (default 30s).
	Timeout time.Duration
}

// Delivery is what a webhook target receives, as JSON.
type Delivery struct {
	JobID   string `json:"job_id"`
	JobName string `json:"job_name"`
	RunID   string `json:"run_id"`
	Status  Status `json:"status"`
	Output  string `json:"output"`
}

// Deliver sends d.Output to target. A [SILENT] answer sends nothing and
// returns "silent"; otherwise it returns a short description of where the
// answer went, or the reason it did not get there.
func (dl *Deliverer) Deliver(ctx context.Context, target Target, d Delivery) (string, error) {
	if IsSilent(d.Output) {
		return "silent", nil
	}
	switch target.Kind {
	case Local:
		return "kept in the output file", nil
	case Platform:
		if dl.Platforms == nil {
			return "", fmt.Errorf("deliver to %s: %w", target, ErrNoPlatforms)
		}
		if err := dl.Platforms.Deliver(ctx, target.Platform, target.Chat, target.Thread, d.Output); err != nil {
			return "", fmt.Errorf("deliver to %s: %w", target, err)
		}
		return "delivered to " + target.String(), nil
	case Webhook:
		if err := dl.post(ctx, target.URL, d); err != nil {
			return "", fmt.Errorf("deliver to %s: %w", target, err)
		}
		return "delivered to " + target.String(), nil
	}
	return "", fmt.Errorf("deliver: unknown target %q", target.Kind)
}

func (dl *Deliverer) post(ctx context.Context, url string, d Delivery) error {
	timeout := dl.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hermes-cron")
	client := dl.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("the webhook answered %s: %s", resp.Status, strings.TrimSpace(string(snippet)))
	}
	return nil
}

// OutputPath is the file a run's answer is kept in:
// HOME/cron/output/JOB/RUN.md.
func OutputPath(home, jobID, runID string) string {
	return filepath.Join(home, "cron", "output", jobID, runID+".md")
}

// writeOutput keeps a run's answer (or its error) in its output file,
// whatever the target, written whole or not at all.
func writeOutput(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cron: output %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return fmt.Errorf("cron: output %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cron: output %s: %w", path, err)
	}
	return nil
}
