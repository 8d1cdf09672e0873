// Package vision holds vision_analyze: a question about an image (a file
// in the workspace, an http(s) URL or a data: URL) answered by the
// auxiliary.vision model chain, with its own fallbacks. The image is
// always sent inline: a URL is fetched here, through the HTTP client the
// tool is given (the runtime's is guarded by internal/netguard, so local
// and private addresses are refused), within a size cap, and the bytes
// must be a PNG, JPEG, GIF or WebP image. Local files are read through
// the ReadGuard (the sandbox's read policy).
//
// Concurrency: the tool is safe for concurrent calls.
package vision
