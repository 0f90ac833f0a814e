// The official TypeScript SDK client against the stdio server: launches it (WT_SERVER_CMD, a JSON array),
// lists the tools, validates every schema, calls every tool, checks a path escape, progress and cancel.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Checks, schemaValidators, sampleCalls } from './common.mjs';
import fs from 'node:fs';
import path from 'node:path';

const cmd = JSON.parse(process.env.WT_SERVER_CMD);
const workdir = process.env.WT_WORKDIR;
const c = new Checks('stdio-client');
const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: 'inherit' });
const client = new Client({ name: 'worktarget-test', version: '1.0.0' });
await client.connect(transport);

const { tools } = await client.listTools();
const byName = new Map(tools.map((t) => [t.name, t]));
const validators = new Map();
for (const t of tools) {
  validators.set(t.name, schemaValidators(t));
  c.ok(t.outputSchema && t.outputSchema.type === 'object', `${t.name} has an object outputSchema`);
  const a = t.annotations || {};
  c.ok(typeof a.title === 'string' && a.title.length > 0, `${t.name} has a title`);
  for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
    c.ok(typeof a[hint] === 'boolean', `${t.name} has ${hint}`);
  }
}
c.ok(byName.get('file_read').annotations.readOnlyHint === true, 'file_read is read-only');
c.ok(byName.get('file_read').annotations.destructiveHint === false, 'file_read is not destructive');
c.ok(byName.get('exec_run').annotations.openWorldHint === true, 'exec_run is open-world');

const called = new Set();
async function call(name, args, opts) {
  const v = validators.get(name);
  c.ok(v.input(args), `the sample arguments of ${name} match its inputSchema ${JSON.stringify(v.input.errors)}`);
  const r = await client.callTool({ name, arguments: args }, undefined, opts);
  called.add(name);
  return r;
}
function good(name, r) {
  c.ok(!r.isError, `${name} succeeded: ${JSON.stringify(r.content)}`);
  c.ok(validators.get(name).output(r.structuredContent), `${name}'s structuredContent matches its outputSchema`);
  c.ok(r.content[0].type === 'text' && JSON.parse(r.content[0].text) !== null, `${name} has a JSON text rendering`);
}

for (const [name, args] of sampleCalls()) {
  good(name, await call(name, args));
}
let r = await call('file_read', { path: 'notes/a.txt' });
c.ok(r.isError === true, 'reading a deleted file is an error');
c.ok(r.content[0].text.startsWith('not_found: '), `a missing file is not_found, got ${r.content[0].text}`);
c.ok(r.structuredContent === undefined, 'an error has no structuredContent (it would not match the output schema)');
r = await call('file_read', { path: '../x' });
c.ok(r.isError === true, 'a path escape is isError');
c.ok(r.content[0].text.startsWith('path_escape: '), 'the escape text starts with its code');

// A job to tail and kill.
r = await call('exec_run', { command: 'echo started; sleep 30', waitMs: 300 });
good('exec_run', r);
const jobId = r.structuredContent.id;
c.ok(r.structuredContent.status === 'running', 'the sleeping job runs');
good('exec_tail', await call('exec_tail', { id: jobId }));
good('exec_kill', await call('exec_kill', { id: jobId }));

// Routing: WORK and back to CLIENT, the next call runs there.
good('work_target_set', await call('work_target_set', { kind: 'WORK' }));
r = await call('work_target_get', {});
c.ok(r.structuredContent.current.kind === 'WORK', `the target is WORK now: ${JSON.stringify(r.structuredContent)}`);
good('file_write', await call('file_write', { path: 'on-work.txt', content: 'w' }));
good('work_target_set', await call('work_target_set', { kind: 'CLIENT' }));
c.ok(!fs.existsSync(path.join(workdir, 'on-work.txt')), 'the WORK write did not land in the CLIENT work directory');

// Progress while exec_run waits.
let progress = 0;
r = await call('exec_run', { command: 'sleep 2.5; echo done', waitMs: 20000 }, { onprogress: () => { progress++; } });
good('exec_run', r);
c.ok(progress >= 1, `exec_run sent progress while it waited (${progress})`);

// Cancel a long exec_run: the job and its process must be gone.
const pidFile = path.join(workdir, 'job.pid');
const ac = new AbortController();
let sawProgress;
const started = new Promise((resolve) => { sawProgress = resolve; });
const pending = call('exec_run', { command: 'echo $$ > job.pid; exec sleep 60', waitMs: 55000 },
  { signal: ac.signal, onprogress: () => sawProgress(), timeout: 120000 });
await started;
ac.abort('the test cancels');
let aborted = false;
try { await pending; } catch (e) { aborted = true; }
c.ok(aborted, 'the cancelled call was rejected on the client');
const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
let alive = true;
for (let i = 0; i < 200 && alive; i++) {
  try { process.kill(pid, 0); await new Promise((res) => setTimeout(res, 50)); } catch (e) { alive = false; }
}
c.ok(!alive, `the cancelled job's process ${pid} is gone`);
r = await call('exec_status', {});
good('exec_status', r);
const running = (r.structuredContent.jobs || []).filter((j) => j.status === 'running');
c.ok(running.length === 0, `no job runs after the cancel: ${JSON.stringify(running)}`);

for (const t of tools) {
  c.ok(called.has(t.name), `${t.name} was called`);
}
await client.close();
c.done();
