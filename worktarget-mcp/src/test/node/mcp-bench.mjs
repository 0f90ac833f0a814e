// The side-by-side MCP benchmark: one client (the TypeScript SDK) drives the WorkTarget stdio server and the
// reference filesystem server (@modelcontextprotocol/server-filesystem) over the same directory, runs the same
// operations on both, interleaved call by call, and prints medians and ratios. Started by the benchmarks
// module's McpBenchmark, which prepares the directory: WT_SERVER_CMD, REF_SERVER_CMD (JSON arrays), BENCH_DIR,
// BENCH_REPS, BENCH_IDLE_MS, BENCH_RUNS (how many times both servers are started afresh and measured: every run
// meets new processes, so the calls right after a start, which vary most, are sampled more than once).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.env.BENCH_DIR;
const reps = Number(process.env.BENCH_REPS || '21');
// warm-up calls per operation and server, not timed: the JVM compiles the hot paths during the first ones
const warmup = Number(process.env.BENCH_WARMUP || '20');
// how long the client stays idle after connecting, before its first call (0: at once); an MCP client
// usually starts its servers at launch and calls them seconds later, when the model first uses a tool
const idleMs = Number(process.env.BENCH_IDLE_MS || '0');
const runs = Math.max(1, Number(process.env.BENCH_RUNS || '1'));
const abs = (p) => path.join(dir, p);

async function connect(name, cmd) {
  const t0 = performance.now();
  const client = new Client({ name: 'mcp-bench', version: '1.0.0' });
  // the environment of the documented client config: the SDK's default one plus LC_ALL (docs/mcp.md)
  const transport = new StdioClientTransport({ command: cmd[0], args: cmd.slice(1), stderr: 'ignore',
    env: { ...getDefaultEnvironment(), LC_ALL: 'C.UTF-8' } });
  await client.connect(transport);
  await client.listTools();
  return { name, client, pid: transport.pid, connectMs: performance.now() - t0 };
}

let flip = 0;
const ops = [
  { op: 'read a 4 KiB file', wt: () => ['file_read', { path: 'small.txt' }],
    ref: () => ['read_text_file', { path: abs('small.txt') }] },
  { op: 'head 100 lines of a 100 MB log', wt: () => ['file_head_tail', { path: 'big.log', head: 100 }],
    ref: () => ['read_text_file', { path: abs('big.log'), head: 100 }] },
  { op: 'tail 100 lines of a 100 MB log', wt: () => ['file_head_tail', { path: 'big.log', tail: 100 }],
    ref: () => ['read_text_file', { path: abs('big.log'), tail: 100 }] },
  { op: 'list a directory (java/util, 136 entries)', wt: () => ['file_list', { path: 'src/java.base/java/util' }],
    ref: () => ['list_directory', { path: abs('src/java.base/java/util') }] },
  { op: 'search files by name (**/*Map*.java, 15,224 files)',
    wt: () => ['file_find', { path: 'src', pathGlob: '**/*Map*.java', limit: 2000 }],
    ref: () => ['search_files', { path: abs('src'), pattern: '**/*Map*.java' }] },
  { op: 'write a 4 KiB file', wt: () => ['file_write', { path: 'out-wt.txt', content: 'x'.repeat(4096) }],
    ref: () => ['write_file', { path: abs('out-ref.txt'), content: 'x'.repeat(4096) }] },
  { op: 'edit one line of a 4 KiB file',
    wt: () => { const [a, b] = flip % 2 ? ['BETA', 'beta'] : ['beta', 'BETA'];
      return ['file_edit', { path: 'edit-wt.txt', oldText: a, newText: b }]; },
    ref: () => { const [a, b] = flip % 2 ? ['BETA', 'beta'] : ['beta', 'BETA'];
      return ['edit_file', { path: abs('edit-ref.txt'), edits: [{ oldText: a, newText: b }] }]; } },
];

// the server process's CPU time so far (user + system, all its threads: the JIT's too), in ms; 10 ms ticks
function cpuMs(server) {
  try {
    const f = fs.readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch (e) {
    return NaN; // no /proc: the column stays empty
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function timed(server, [name, args]) {
  const t0 = performance.now();
  const r = await server.client.callTool({ name, arguments: args });
  const ms = performance.now() - t0;
  if (r.isError) {
    throw new Error(`${server.name} ${name} failed: ${JSON.stringify(r.content).slice(0, 300)}`);
  }
  return { ms, r };
}

function found(server, wt, r) {
  if (server === wt) {
    return (r.structuredContent.files || r.structuredContent.entries || []).length;
  }
  return r.content[0].text.split('\n').filter((l) => l.trim().length > 0).length;
}

// one run: both servers started afresh, every operation measured on both
async function run() {
  const wt = await connect('worktarget', JSON.parse(process.env.WT_SERVER_CMD));
  const ref = await connect('reference', JSON.parse(process.env.REF_SERVER_CMD));
  if (idleMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, idleMs));
  }
  const rows = [];
  for (const o of ops) {
    const times = { wt: [], ref: [] };
    const cpu = { wt: 0, ref: 0 };
    let counts = '';
    for (let i = -warmup; i < reps; i++) {
      if (i === 0) {
        cpu.wt = -cpuMs(wt);
        cpu.ref = -cpuMs(ref);
      }
      // interleaved, alternating who goes first, so that load on the machine hits both alike
      const order = i % 2 ? [['wt', wt], ['ref', ref]] : [['ref', ref], ['wt', wt]];
      for (const [k, s] of order) {
        const { ms, r } = await timed(s, o[k]());
        if (i >= 0) {
          times[k].push(ms);
        }
        if (i === 0 && (o.op.startsWith('search') || o.op.startsWith('list'))) {
          counts += ` ${k}=${found(s, wt, r)}`;
        }
      }
      flip++;
    }
    cpu.wt = (cpu.wt + cpuMs(wt)) / reps;
    cpu.ref = (cpu.ref + cpuMs(ref)) / reps;
    const w = median(times.wt);
    const f = median(times.ref);
    rows.push({ op: o.op + (counts ? ` [found:${counts}]` : ''), wt: w, ref: f, ratio: w / f, cpu });
  }
  await wt.client.close();
  await ref.client.close();
  return { rows, connect: { wt: wt.connectMs, ref: ref.connectMs } };
}

const results = [];
for (let n = 0; n < runs; n++) {
  results.push(await run());
}

function table(title, connect, rows) {
  console.log(title);
  console.log(`connect (spawn + initialize + tools/list): worktarget ${connect.wt.toFixed(0)} ms, `
    + `reference ${connect.ref.toFixed(0)} ms`);
  console.log('| operation | worktarget | reference | ratio | CPU worktarget | CPU reference |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(`| ${r.op} | ${r.wt.toFixed(2)} ms | ${r.ref.toFixed(2)} ms | ${r.ratio.toFixed(2)} `
      + `| ${r.cpu.wt.toFixed(2)} ms | ${r.cpu.ref.toFixed(2)} ms |`);
  }
}

console.log(`idle after connecting: ${idleMs} ms; warm-up calls per operation and server: ${warmup}; runs: ${runs}`);
console.log(`medians of ${reps} calls each, interleaved; ratio = worktarget / reference (< 1: worktarget faster)`);
console.log('CPU = the server process\'s CPU time per timed call (all its threads, the JIT\'s and a warm-up\'s too)');
if (runs === 1) {
  table('', results[0].connect, results[0].rows);
} else {
  results.forEach((r, n) => table(`run ${n + 1} of ${runs}`, r.connect, r.rows));
  // per operation, the median over the runs of each column (the ratio's median is of the runs' ratios)
  const med = (f) => median(results.map(f));
  const rows = results[0].rows.map((r, i) => ({
    op: r.op,
    wt: med((x) => x.rows[i].wt),
    ref: med((x) => x.rows[i].ref),
    ratio: med((x) => x.rows[i].ratio),
    cpu: { wt: med((x) => x.rows[i].cpu.wt), ref: med((x) => x.rows[i].cpu.ref) },
  }));
  table(`median over ${runs} runs (ratio: the median of the runs' ratios; per run: `
    + `${results.map((x) => x.rows.map((r) => r.ratio.toFixed(2)).join('/')).join(', ')})`,
    { wt: med((x) => x.connect.wt), ref: med((x) => x.connect.ref) }, rows);
}
