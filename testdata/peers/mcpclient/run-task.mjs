// Spawns `hermes mcp serve` and drives it with @modelcontextprotocol/sdk's
// Client over stdio, as Claude Code or Codex would: lists the tools, hands
// it a task with run_task (following its progress, and accepting the
// approval it asks for by elicitation), then finds the run's session with
// conversations_list. Prints what it saw as one JSON object on stdout.
// Environment: HERMES_BIN, and HERMES_HOME etc. for the server.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const out = { progress: [], elicitations: [] };
const transport = new StdioClientTransport({
  command: process.env.HERMES_BIN,
  args: ["mcp", "serve"],
  env: process.env,
  cwd: process.cwd(),
  stderr: "inherit",
});
const client = new Client({ name: "hermes-test-mcp-client", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  out.elicitations.push(req.params.message);
  return { action: "accept", content: {} };
});
await client.connect(transport);
out.server = client.getServerVersion()?.name;
out.tools = (await client.listTools()).tools.map((t) => t.name).sort();

const res = await client.callTool(
  { name: "run_task", arguments: { prompt: process.argv[2] } },
  undefined,
  { onprogress: (p) => out.progress.push(p.message ?? ""), timeout: 60000 },
);
out.isError = res.isError === true;
out.text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
out.sessionId = res.structuredContent?.session_id;

const listed = await client.callTool({ name: "conversations_list", arguments: { source: "mcp" } });
out.listed = listed.structuredContent.conversations.map((c) => c.session_id);
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
