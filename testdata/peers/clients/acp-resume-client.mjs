// Spawns `hermes acp` twice and drives it with @agentclientprotocol/sdk as
// an editor reopening a conversation it still shows: the first run opens
// a session and prompts; the second resumes it (session/resume, no
// replay), switches its model (session/set_model, by method name: the
// stable client has no helper for it) and prompts with a screenshot.
// Prints what it saw as one JSON object on stdout.
// Environment: HERMES_BIN, IMAGE_B64 (a PNG, base64), and HERMES_HOME etc.
// for the agent; argv[2] is the session's working directory.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const cwd = process.argv[2];
const out = {};

async function editor(op) {
  const child = spawn(process.env.HERMES_BIN, ["acp"], { stdio: ["pipe", "pipe", "inherit"], env: process.env });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const updates = [];
  await acp
    .client({ name: "hermes-test-editor" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .connectWith(stream, async (ctx) => {
      const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
      await op(ctx, init, updates);
    });
  child.stdin.end();
  await exited;
}

await editor(async (ctx, init) => {
  out.canResume = init.agentCapabilities?.sessionCapabilities?.resume != null;
  out.canImage = init.agentCapabilities?.promptCapabilities?.image === true;
  const s = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  out.sessionId = s.sessionId;
  out.models = s.models?.availableModels?.map((m) => m.modelId);
  out.currentModel = s.models?.currentModelId;
  const r = await ctx.request(acp.methods.agent.session.prompt, { sessionId: s.sessionId, prompt: [{ type: "text", text: "Remember 42." }] });
  out.firstStop = r.stopReason;
});

await editor(async (ctx, init, updates) => {
  const resumed = await ctx.request(acp.methods.agent.session.resume, { sessionId: out.sessionId, cwd, mcpServers: [] });
  out.resumedModes = resumed.modes?.availableModes?.length ?? 0;
  out.updatesAfterResume = updates.length;
  await ctx.request("session/set_model", { sessionId: out.sessionId, modelId: "custom:vision-model" });
  const r = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: out.sessionId,
    prompt: [
      { type: "text", text: "What is in this screenshot?" },
      { type: "image", mimeType: "image/png", data: process.env.IMAGE_B64 },
    ],
  });
  out.secondStop = r.stopReason;
  out.text = updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text")
    .map((u) => u.content.text)
    .join("");
  out.replayed = updates.filter((u) => u.sessionUpdate === "user_message_chunk").length;
  try {
    await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: out.sessionId,
      prompt: [{ type: "audio", mimeType: "audio/wav", data: "AAAA" }],
    });
    out.audioError = null;
  } catch (e) {
    out.audioError = JSON.stringify(e.data ?? e.message);
  }
});
console.log(JSON.stringify(out));
