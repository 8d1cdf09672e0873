// Package untrusted prepares text the program did not write before it
// reaches a model (context files, SOUL.md, memory, skills, MCP tool
// descriptions): ScanContext and ScanStrict find prompt-injection markers
// and invisible characters, RevealInvisible makes those characters
// visible, and Truncate caps the text to a bounded head and tail.
//
// It imports only the standard library, so that prompt, memory, skills
// and mcp can all use it.
//
// Concurrency: every function may run concurrently; the patterns compile
// once, on first use.
package untrusted
