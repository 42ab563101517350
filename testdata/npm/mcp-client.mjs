// A client on the MCP TypeScript SDK for ctx's tests: it starts the server
// command given after the calls file on stdio, lists the tools, makes each
// call of CALLS (a JSON array of {"name", "arguments"}; "$ROOT" in it is
// the ROOT environment variable), disconnects, and prints one JSON object:
// {server, instructions, tools, calls: [result or {error}]}.
//
//   node mcp-client.mjs CALLS.json CMD [ARGS...]
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [callsFile, cmd, ...args] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(callsFile, "utf8").replaceAll("$ROOT", process.env.ROOT ?? ""));
const transport = new StdioClientTransport({ command: cmd, args, stderr: "inherit", env: process.env });
const client = new Client({ name: "ctx-test-ts-client", version: "1.0.0" });
await client.connect(transport);
const out = {
  server: client.getServerVersion(),
  instructions: client.getInstructions() ?? null,
  tools: (await client.listTools()).tools.map((t) => t.name),
  calls: [],
};
for (const c of calls) {
  try {
    out.calls.push(await client.callTool({ name: c.name, arguments: c.arguments ?? {} }));
  } catch (e) {
    out.calls.push({ error: { code: e.code ?? null, message: String(e.message) } });
  }
}
await client.close();
console.log(JSON.stringify(out));
