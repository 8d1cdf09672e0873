// Package pricing prices model calls from a table of list prices for
// the models hermes knows (prices.go), in US dollars per million tokens:
// input, output, and prompt-cache reads and writes, which providers bill
// apart from plain input.
//
// Lookup matches a model name as providers and routers spell it:
// provider prefixes (anthropic/, openai/, Bedrock's anthropic.), date
// suffixes (-20250514, -2024-08-06, @20240620), -latest and Bedrock's
// -v1:0 are set aside, and the rest must equal a name in the table. A
// model the table does not hold has no price: Lookup says so, and every
// caller shows "unknown" rather than a guess. A family name never prices
// its members (gpt-4o does not price gpt-4o-mini).
package pricing
