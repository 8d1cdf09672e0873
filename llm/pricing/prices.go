package pricing

// Prices are USD per million tokens, from the providers' public pricing
// pages (openai.com/api/pricing, anthropic.com/pricing,
// ai.google.dev/gemini-api/docs/pricing) as listed in 2025. Anthropic's
// cache writes are the 5-minute cache's (1.25 x input); OpenAI bills no
// extra for cache writes, so they cost plain input. Gemini's prices are
// those of prompts up to 200k tokens. Update a row when a provider
// changes a price; add a row only from a published price.
var table = []entry{
	// Anthropic
	{[]string{"claude-opus-4-5", "claude-opus-4.5"}, Price{Input: 5, Output: 25, CacheRead: 0.50, CacheWrite: 6.25}},
	{[]string{"claude-opus-4-1", "claude-opus-4.1", "claude-opus-4", "claude-opus-4-0", "claude-3-opus"}, Price{Input: 15, Output: 75, CacheRead: 1.50, CacheWrite: 18.75}},
	{[]string{"claude-sonnet-4-5", "claude-sonnet-4.5", "claude-sonnet-4", "claude-sonnet-4-0", "claude-3-7-sonnet", "claude-3.7-sonnet", "claude-3-5-sonnet", "claude-3.5-sonnet"}, Price{Input: 3, Output: 15, CacheRead: 0.30, CacheWrite: 3.75}},
	{[]string{"claude-haiku-4-5", "claude-haiku-4.5"}, Price{Input: 1, Output: 5, CacheRead: 0.10, CacheWrite: 1.25}},
	{[]string{"claude-3-5-haiku", "claude-3.5-haiku"}, Price{Input: 0.80, Output: 4, CacheRead: 0.08, CacheWrite: 1}},
	{[]string{"claude-3-haiku"}, Price{Input: 0.25, Output: 1.25, CacheRead: 0.03, CacheWrite: 0.30}},

	// OpenAI
	{[]string{"gpt-5"}, Price{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25}},
	{[]string{"gpt-5-mini"}, Price{Input: 0.25, Output: 2, CacheRead: 0.025, CacheWrite: 0.25}},
	{[]string{"gpt-5-nano"}, Price{Input: 0.05, Output: 0.40, CacheRead: 0.005, CacheWrite: 0.05}},
	{[]string{"gpt-4.1"}, Price{Input: 2, Output: 8, CacheRead: 0.50, CacheWrite: 2}},
	{[]string{"gpt-4.1-mini"}, Price{Input: 0.40, Output: 1.60, CacheRead: 0.10, CacheWrite: 0.40}},
	{[]string{"gpt-4.1-nano"}, Price{Input: 0.10, Output: 0.40, CacheRead: 0.025, CacheWrite: 0.10}},
	{[]string{"gpt-4o"}, Price{Input: 2.50, Output: 10, CacheRead: 1.25, CacheWrite: 2.50}},
	// The first gpt-4o snapshot kept its launch price and no cache discount.
	{[]string{"gpt-4o-2024-05-13"}, Price{Input: 5, Output: 15, CacheRead: 5, CacheWrite: 5}},
	{[]string{"gpt-4o-mini"}, Price{Input: 0.15, Output: 0.60, CacheRead: 0.075, CacheWrite: 0.15}},
	{[]string{"o3"}, Price{Input: 2, Output: 8, CacheRead: 0.50, CacheWrite: 2}},
	{[]string{"o4-mini"}, Price{Input: 1.10, Output: 4.40, CacheRead: 0.275, CacheWrite: 1.10}},
	{[]string{"o3-mini"}, Price{Input: 1.10, Output: 4.40, CacheRead: 0.55, CacheWrite: 1.10}},
	{[]string{"o1"}, Price{Input: 15, Output: 60, CacheRead: 7.50, CacheWrite: 15}},

	// Google
	{[]string{"gemini-2.5-pro"}, Price{Input: 1.25, Output: 10, CacheRead: 0.31, CacheWrite: 1.25}},
	{[]string{"gemini-2.5-flash"}, Price{Input: 0.30, Output: 2.50, CacheRead: 0.075, CacheWrite: 0.30}},
}
