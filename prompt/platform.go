package prompt

import "github.com/hermes-go/hermes/internal/lazy"

// platformHints tell the model how its output is displayed.
var platformHints = lazy.Of(platformHintTable)

func platformHintTable() map[string]string {
	return map[string]string{
		"cli": "You are a CLI AI Agent. Try not to use markdown but simple text renderable inside a terminal.",
		"acp": "You are running inside a code editor through the Agent Client Protocol. Markdown is rendered. " +
			"Refer to files by their paths relative to the project root.",
		"api": "You are answering through an API. The client renders markdown.",
		"cron": "You are running as a scheduled job with no user present. Do not ask questions; " +
			"finish the task with your best judgement and report the result.",
		"telegram": "You are chatting on Telegram. Keep messages short; use simple markdown only " +
			"(bold, italic, code, links), no tables or headings.",
		"discord": "You are chatting on Discord. Keep messages under 2000 characters; Discord markdown is rendered, tables are not.",
		"slack":   "You are chatting on Slack. Use Slack mrkdwn (*bold*, _italic_, `code`), no tables or headings.",
		"whatsapp": "You are chatting on WhatsApp. Keep messages short and use only WhatsApp formatting " +
			"(*bold*, _italic_, ```code```); no headings, tables or links in markdown syntax.",
	}
}
