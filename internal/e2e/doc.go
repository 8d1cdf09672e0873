// Package e2e runs the real hermes binary against llmtest's fake provider
// on 127.0.0.1: what a user types, what the provider receives, what the
// user gets back.
package e2e
