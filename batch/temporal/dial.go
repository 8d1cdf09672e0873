package temporal

import (
	"fmt"
	"io"
	"log/slog"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// Dial connects to a Temporal frontend. The SDK's own log goes to logw at
// warning level and above (retries, failed activities); its chatter does
// not.
func Dial(address, namespace string, logw io.Writer) (client.Client, error) {
	if logw == nil {
		logw = io.Discard
	}
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.Dial(client.Options{HostPort: address, Namespace: namespace, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("temporal at %s: %w", address, err)
	}
	return c, nil
}
