// Spawns `hermes acp` and drives it with @agentclientprotocol/sdk, as an
// editor would: opens a session, prompts, receives the streamed updates
// and a permission request (which it rejects), then cancels a slow turn.
// Prints what it saw as one JSON object on stdout.
// Environment: HERMES_BIN, and HERMES_HOME etc. for the agent; argv[2] is
// the session's working directory.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const cwd = process.argv[2];
const child = spawn(process.env.HERMES_BIN, ["acp"], { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const out = { permissions: [], updates: {} };

const app = acp.client({ name: "hermes-test-editor" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    out.permissions.push({ toolCallId: params.toolCall.toolCallId, options: params.options.map((o) => o.kind) });
    const reject = params.options.find((o) => o.kind === "reject_once");
    return { outcome: { outcome: "selected", optionId: reject.optionId } };
  });

await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
  out.agent = init.agentInfo?.name;
  out.loadSession = init.agentCapabilities?.loadSession === true;
  await ctx.buildSession(cwd).withSession(async (session) => {
    out.modes = session.modes?.availableModes.map((m) => m.id);

    // A turn that asks to delete the victim: the permission is rejected.
    session.prompt("Delete the victim directory.");
    let text = "";
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === "stop") {
        out.firstStop = m.stopReason;
        break;
      }
      const kind = m.update.sessionUpdate;
      out.updates[kind] = (out.updates[kind] ?? 0) + 1;
      if (kind === "agent_message_chunk" && m.update.content.type === "text") text += m.update.content.text;
      if (kind === "tool_call") out.toolCall = { id: m.update.toolCallId, kind: m.update.kind, title: m.update.title };
    }
    out.text = text;

    // A slow turn: cancelled once its first tool call finished, while the
    // next model call hangs.
    const prompted = session.prompt("Take your time.");
    let cancelledAt = 0;
    for (;;) {
      const m = await session.nextUpdate();
      if (m.kind === "stop") {
        out.slowStop = m.stopReason;
        out.cancelMillis = Date.now() - cancelledAt;
        break;
      }
      if (m.update.sessionUpdate === "tool_call_update" && m.update.status === "completed" && cancelledAt === 0) {
        cancelledAt = Date.now();
        await ctx.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
      }
    }
    await prompted;
    out.sessionId = session.sessionId;
  });
});
child.kill();
console.log(JSON.stringify(out));
