// Spawns `hermes acp` and drives it with @agentclientprotocol/sdk as an
// editor that has MCP servers of its own: a session gets a working one and
// a broken one, and the model calls the working one's tool; a second
// session gets none; session/list names both; session/load brings the
// first back with its server; then the editor quits.
// Prints what it saw as one JSON object on stdout.
// Environment: HERMES_BIN, MCP_SERVER_BIN (a stdio MCP server with an
// echo tool), PIDFILE (where it writes its pid), and HERMES_HOME etc. for
// the agent; argv[2] is the sessions' working directory.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const cwd = process.argv[2];
const child = spawn(process.env.HERMES_BIN, ["acp"], { stdio: ["pipe", "pipe", "inherit"], env: process.env });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const out = { pids: [] };

const server = {
  name: "ed",
  command: process.env.MCP_SERVER_BIN,
  args: [],
  env: [{ name: "HERMES_MCPTEST_PIDFILE", value: process.env.PIDFILE }],
};
const broken = { name: "broken", command: cwd + "/no-such-mcp-server", args: [], env: [] };

function within(ms, promise) {
  return Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve(null), ms).unref())]);
}

// turn prompts and reads the turn's updates.
async function turn(session, text) {
  session.prompt(text);
  const t = { text: "", tools: [] };
  for (;;) {
    const m = await session.nextUpdate();
    if (m.kind === "stop") {
      t.stop = m.stopReason;
      return t;
    }
    const u = m.update;
    if (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text") t.text += u.content.text;
    if (u.sessionUpdate === "tool_call") t.tools.push({ id: u.toolCallId, title: u.title });
    if (u.sessionUpdate === "tool_call_update") {
      t.tools.push({ id: u.toolCallId, status: u.status, output: (u.content ?? []).map((c) => c.content?.text ?? "").join("") });
    }
  }
}

await app();
child.stdin.end(); // the editor quits
out.exit = await within(20000, exited);
console.log(JSON.stringify(out));

async function app() {
  await acp.client({ name: "hermes-test-editor" }).connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    out.mcpCapabilities = init.agentCapabilities?.mcpCapabilities;
    out.canList = init.agentCapabilities?.sessionCapabilities?.list != null;

    await ctx.buildSession({ cwd, mcpServers: [server, broken] }).withSession(async (session) => {
      out.first = session.sessionId;
      // Before any prompt, the editor is told of the server that failed.
      const m = await within(20000, session.nextUpdate());
      out.notice = m?.kind === "session_update" && m.update.sessionUpdate === "agent_message_chunk" ? m.update.content.text : null;
      out.withServer = await turn(session, "Echo something with the editor's tool.");
      out.pids.push(readFileSync(process.env.PIDFILE, "utf8"));
    });

    await ctx.buildSession(cwd).withSession(async (session) => {
      out.second = session.sessionId;
      out.without = await turn(session, "Anything?");
    });

    const list = await ctx.request(acp.methods.agent.session.list, {});
    out.listed = list.sessions.map((s) => ({ id: s.sessionId, cwd: s.cwd, title: s.title, updatedAt: s.updatedAt }));

    const loaded = await ctx.request(acp.methods.agent.session.load, { sessionId: out.first, cwd, mcpServers: [server] });
    out.loadedModes = loaded.modes?.availableModes?.length ?? 0;
    const r = await ctx.request(acp.methods.agent.session.prompt, { sessionId: out.first, prompt: [{ type: "text", text: "Echo again." }] });
    out.loadedStop = r.stopReason;
    out.pids.push(readFileSync(process.env.PIDFILE, "utf8"));
  });
}
