// Package format prepares a model's markdown answer for a chat platform:
// Split cuts it into chunks under the platform's message limit, the
// converters (TelegramHTML, SlackMrkdwn, Discord, Plain) turn markdown
// into what each platform renders, Render does both with the limit
// applied to the converted text, and Blocks finds the complete blocks of
// an answer still streaming in.
//
// Markdown is parsed with goldmark (CommonMark with GFM tables,
// strikethrough and task lists), less three constructs that chat answers
// do not need and that would make a block depend on text after it:
// indented code blocks (an indented line is text; models write fences),
// raw HTML (shown as text, escaped where the platform needs it) and link
// reference definitions (shown as written).
//
// # Block-local conversion
//
// Every converter renders the top-level blocks of its input one by one,
// each from its own source, and joins them with a blank line where the
// source has one and a newline otherwise; lists are rendered tight
// whatever their spacing. So for any text md and any prefix p of md made
// of whole blocks (p ends after a blank line outside code fences, as the
// complete part of Blocks does), conv(p) is a prefix of conv(md). A
// gateway streaming an answer by editing one message can therefore show
// conv(complete) at each step and every edit extends the one before.
//
// # Limits
//
// Limits are counted in runes (Unicode code points). Split and Render
// never return a chunk over the limit. Render measures the converted
// chunk, not the markdown: a chunk full of & or < is cut finer.
//
// All functions are safe for concurrent use.
package format
