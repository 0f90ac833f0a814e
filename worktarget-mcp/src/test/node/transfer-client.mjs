// The official TypeScript SDK client over Streamable HTTP (WT_URL, WT_TOKEN) moves a real file between backends:
// client_file_upload sends WT_FILE (WT_SIZE bytes, hash WT_HASH) from the daemon build-box into a new RootDir on
// WORK, with a progressToken; progress must arrive and rise, and the result must carry the file's hash (the
// receiver's, checked before the file was renamed into place). An upload into a RootDir that does not exist is an
// isError result that keeps its structured content (ok: false, the code and the message).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Checks } from './common.mjs';

const c = new Checks('transfer-client');
const transport = new StreamableHTTPClientTransport(new URL(process.env.WT_URL),
  { requestInit: { headers: { Authorization: `Bearer ${process.env.WT_TOKEN}` } } });
const client = new Client({ name: 'worktarget-test', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
c.ok(tools.some((t) => t.name === 'client_file_upload'), 'the transfer tools are listed');

let r = await client.callTool({ name: 'workspace_create_ephemeral_dir', arguments: {} });
c.ok(!r.isError && typeof r.structuredContent.dirName === 'string', `a RootDir was made: ${JSON.stringify(r.content)}`);
const dirName = r.structuredContent.dirName;
r = await client.callTool({ name: 'work_target_set', arguments: { kind: 'DAEMON', targetName: 'build-box' } });
c.ok(!r.isError, `switched to the daemon: ${JSON.stringify(r.content)}`);

const progress = [];
r = await client.callTool({ name: 'client_file_upload',
  arguments: { localPath: process.env.WT_FILE, dirName, remotePath: 'up/big.bin' } },
undefined, { onprogress: (p) => { progress.push(p.progress); }, timeout: 300000 });
c.ok(!r.isError && r.structuredContent.ok === true, `the upload succeeded: ${JSON.stringify(r.content).slice(0, 300)}`);
c.ok(r.structuredContent.hash === process.env.WT_HASH, `the result carries the file's hash (${r.structuredContent.hash})`);
c.ok(progress.length >= 1, `progress arrived while the file moved (${progress.length} notifications)`);
c.ok(progress.every((p, i) => i === 0 || p > progress[i - 1]), `the progress rises: ${progress.join(', ')}`);
console.log(`progress=${progress.length}`);

// a transfer that does not succeed answers ok:false: a failed call (isError) that keeps its structured result
r = await client.callTool({ name: 'client_file_upload',
  arguments: { localPath: process.env.WT_FILE, dirName: 'no-such-root', remotePath: 'x.bin' } });
c.ok(r.isError === true, `an upload into a missing RootDir is isError: ${JSON.stringify(r)}`);
c.ok(r.structuredContent && r.structuredContent.ok === false && r.structuredContent.code === 'not_found'
  && r.structuredContent.error.startsWith("dirName not found: 'no-such-root'"),
`its structured result says why: ${JSON.stringify(r.structuredContent)}`);
c.ok(r.content[0].text.includes('not_found'), 'its text says it too');
await transport.terminateSession();
await client.close();
c.done();
