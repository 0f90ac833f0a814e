// The official TypeScript SDK client over Streamable HTTP (WT_URL, WT_TOKEN): refused without the token;
// with it, progress while exec_run waits, and a cancelled exec_run whose job no longer runs.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Checks } from './common.mjs';

const url = new URL(process.env.WT_URL);
const c = new Checks('http-client');

let refused = false;
let why = 'connected';
try {
  const anonymous = new Client({ name: 'worktarget-test', version: '1.0.0' });
  await anonymous.connect(new StreamableHTTPClientTransport(url));
} catch (e) {
  why = `${e} (code ${e.code})`;
  refused = e.code === 401;
}
c.ok(refused, `a client without the token is refused with 401: ${why}`);

const transport = new StreamableHTTPClientTransport(url,
  { requestInit: { headers: { Authorization: `Bearer ${process.env.WT_TOKEN}` } } });
const client = new Client({ name: 'worktarget-test', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
c.ok(tools.some((t) => t.name === 'exec_run'), 'exec_run is listed');

let progress = 0;
let r = await client.callTool({ name: 'exec_run', arguments: { command: 'sleep 1; echo done', waitMs: 20000 } },
  undefined, { onprogress: () => { progress++; } });
c.ok(!r.isError && r.structuredContent.status === 'exited', `exec_run finished: ${JSON.stringify(r.content)}`);
c.ok(progress >= 1, `progress arrived over the SSE stream (${progress})`);

const ac = new AbortController();
let sawProgress;
const started = new Promise((resolve) => { sawProgress = resolve; });
const pending = client.callTool({ name: 'exec_run', arguments: { command: process.env.WT_LONG_COMMAND, waitMs: 55000 } },
  undefined, { signal: ac.signal, onprogress: () => sawProgress(), timeout: 120000 });
await started;
ac.abort('the test cancels');
let aborted = false;
try { await pending; } catch (e) { aborted = true; }
c.ok(aborted, 'the cancelled call was rejected on the client');
let running = 1;
for (let i = 0; i < 400 && running > 0; i++) {
  r = await client.callTool({ name: 'exec_status', arguments: {} });
  running = (r.structuredContent.jobs || []).filter((j) => j.status === 'running').length;
  if (running > 0) { await new Promise((res) => setTimeout(res, 50)); }
}
c.ok(running === 0, 'no job runs after the cancel');
await transport.terminateSession();
await client.close();
c.done();
