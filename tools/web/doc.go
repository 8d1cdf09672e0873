// Package web holds the web tools: web_extract, which fetches pages and
// turns them into readable markdown (long ones summarised by the
// auxiliary.web_extract model), and web_search, one tool over several
// search backends (SearXNG, Brave, Tavily, Exa, Firecrawl).
//
// web_extract fetches only http and https, through the HTTP client it is
// given: the runtime gives it one built on internal/netguard, so pages on
// loopback, private, link-local and metadata addresses are refused at
// connect time, redirects included, unless web.allow_private. Every page
// has a size cap (the rest is not read) and a deadline; requests to one
// host are made one at a time, a minimum interval apart (politeness);
// different hosts are fetched in parallel. HTML goes through readability
// (codeberg.org/readeck/go-readability) and an HTML-to-markdown converter;
// plain text and JSON are returned as they are (JSON indented); PDF and
// other binary types are refused with a clear message. A failure is
// reported for its URL; the call fails only when every URL did.
//
// web_search talks to the backend the user configured, whose URL is the
// user's choice: its requests do not go through the guard.
//
// Concurrency: the tools are safe for concurrent calls.
package web
