// Sends images to `hermes serve` with the official openai package, as an
// OpenAI SDK user would, and prints what it saw as one JSON object on
// stdout. Environment: HERMES_URL (http://127.0.0.1:PORT/v1), HERMES_KEY,
// PNG_B64 (a PNG, base64).
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.HERMES_URL, apiKey: process.env.HERMES_KEY, maxRetries: 0 });
const png = `data:image/png;base64,${process.env.PNG_B64}`;
const out = {};

// Chat Completions: an inline image and a remote one in one user message.
const chat = await client.chat.completions.create({
  model: "hermes-agent",
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in these images?" },
        { type: "image_url", image_url: { url: png, detail: "low" } },
        { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
      ],
    },
  ],
});
out.chat = chat.choices[0].message.content;

// Responses: input_text and input_image, then a chained question.
const first = await client.responses.create({
  model: "hermes-agent",
  input: [
    {
      role: "user",
      content: [
        { type: "input_text", text: "Describe this." },
        { type: "input_image", image_url: png, detail: "high" },
      ],
    },
  ],
});
const second = await client.responses.create({ model: "hermes-agent", input: "And its size?", previous_response_id: first.id });
out.responses = { first: first.output_text, second: second.output_text };

// What the server refuses comes back as the SDK's BadRequestError naming
// the parameter.
async function refused(messages) {
  try {
    await client.chat.completions.create({ model: "hermes-agent", messages });
    return { status: 200 };
  } catch (e) {
    return { status: e.status, name: e.constructor.name, param: e.param ?? null, message: e.message };
  }
}
out.notAnImage = await refused([
  { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:image/png;base64,aGVsbG8=" } }] },
]);
out.audio = await refused([
  { role: "user", content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] },
]);

console.log(JSON.stringify(out));
