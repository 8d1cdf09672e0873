// Package gateway runs the agent in chat platforms: one process serves
// every platform config.yaml enables, each through an Adapter (one
// package per platform under gateway/), and every chat is a conversation
// of one app.Runtime.
package gateway
