// Drives `hermes serve` with the official openai package, as an OpenAI SDK
// user would, and prints what it saw as one JSON object on stdout.
// Environment: HERMES_URL (http://127.0.0.1:PORT/v1), HERMES_KEY.
import OpenAI from "openai";

const baseURL = process.env.HERMES_URL;
const client = new OpenAI({ baseURL, apiKey: process.env.HERMES_KEY, maxRetries: 0 });
const out = {};

// Models.
const models = await client.models.list();
out.models = models.data.map((m) => m.id);

// A tool-using turn, not streamed: the server runs the tools itself.
const done = await client.chat.completions.create({
  model: "hermes-agent",
  messages: [{ role: "user", content: "What does notes.txt say?" }],
});
out.chat = { content: done.choices[0].message.content, finish: done.choices[0].finish_reason, usage: done.usage.total_tokens > 0 };

// Streamed: text chunks, and tool progress events passing through the
// same iterator with empty choices.
const stream = await client.chat.completions.create({
  model: "hermes-agent",
  messages: [{ role: "user", content: "Read notes.txt again, streaming." }],
  stream: true,
});
let text = "";
let progress = 0;
let finish = null;
for await (const chunk of stream) {
  if (chunk.object === "hermes.tool.progress") {
    progress++;
    continue;
  }
  text += chunk.choices[0]?.delta?.content ?? "";
  finish = chunk.choices[0]?.finish_reason ?? finish;
}
out.stream = { content: text, progress, finish };

// Responses chained by previous_response_id.
const first = await client.responses.create({ model: "hermes-agent", input: "My name is Ada." });
const second = await client.responses.create({ model: "hermes-agent", input: "What is my name?", previous_response_id: first.id });
const fetched = await client.responses.retrieve(second.id);
out.responses = { first: first.output_text, second: second.output_text, previous: second.previous_response_id === first.id, fetched: fetched.output_text };

// A wrong key.
const wrong = new OpenAI({ baseURL, apiKey: "sk-wrong", maxRetries: 0 });
try {
  await wrong.models.list();
  out.wrongKey = { status: 200 };
} catch (e) {
  out.wrongKey = { status: e.status, name: e.constructor.name, code: e.code ?? null };
}

console.log(JSON.stringify(out));
