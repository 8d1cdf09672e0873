// Package cli is the hermes command line: flag parsing (cobra), building
// the runtime from flags, config.yaml and the environment, and the
// surfaces that print progress. It holds no loop logic; everything it runs
// goes through package agent.
package cli
