package cli

import "github.com/spf13/pflag"

// The Temporal engine's flags are there in every build (their defaults
// are batch/temporal's); only a build with -tags temporal links the
// engine, whose SDK more than doubles the binary and its start-up time.

// temporalFlags say where the Temporal server is and how long activities
// may take.
type temporalFlags struct {
	address      string
	namespace    string
	queue        string
	heartbeat    int
	modelTimeout int
	toolTimeout  int
}

func addTemporalFlags(fs *pflag.FlagSet, f *temporalFlags) {
	fs.StringVar(&f.address, "temporal", "127.0.0.1:7233", "Temporal frontend HOST:PORT")
	fs.StringVar(&f.namespace, "namespace", "default", "Temporal namespace")
	fs.StringVar(&f.queue, "task-queue", "hermes-batch", "Temporal task queue the workers poll")
}

func addActivityFlags(fs *pflag.FlagSet, f *temporalFlags) {
	fs.IntVar(&f.heartbeat, "heartbeat", 30, "seconds without a heartbeat before a model or tool call is retried on another worker")
	fs.IntVar(&f.modelTimeout, "model-timeout", 600, "seconds one model call may take (its retries and fallbacks included)")
	fs.IntVar(&f.toolTimeout, "tool-timeout", 900, "seconds one tool call may take")
}
