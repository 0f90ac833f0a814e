// Shared by the client scripts: checks that count, and the sample arguments of every tool.
import Ajv2020 from 'ajv/dist/2020.js';

export class Checks {
  constructor(name) { this.name = name; this.count = 0; }
  ok(cond, what) {
    if (!cond) { throw new Error(`${this.name}: FAILED ${what}`); }
    this.count++;
  }
  done() { console.log(`${this.name}: OK ${this.count} checks`); }
}

// Compiles a tool's inputSchema and outputSchema with a draft 2020-12 validator; throws on a bad schema.
export function schemaValidators(tool) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  return { input: ajv.compile(tool.inputSchema), output: ajv.compile(tool.outputSchema) };
}

// The calls, in order, that exercise every tool of the stdio server on its work directory.
export function sampleCalls() {
  return [
    ['file_write', { path: 'notes/a.txt', content: 'alpha\nbeta\ngamma\n' }],
    ['file_read', { path: 'notes/a.txt' }],
    ['file_edit', { path: 'notes/a.txt', oldText: 'beta', newText: 'BETA' }],
    ['file_list', { path: 'notes' }],
    ['file_find', { pathGlob: '**/*.txt' }],
    ['file_grep', { pattern: 'BETA' }],
    ['file_head_tail', { path: 'notes/a.txt', head: 1, tail: 1 }],
    ['file_count', { path: 'notes' }],
    ['file_stat', { path: 'notes/a.txt' }],
    ['file_tree', { path: '.' }],
    ['file_mkdir', { path: 'moved' }],
    ['file_move', { from: 'notes/a.txt', to: 'moved/a.txt' }],
    ['file_delete', { path: 'moved/a.txt' }],
    ['exec_run', { command: 'echo hi', waitMs: 10000 }],
    ['exec_status', {}],
    ['work_target_get', {}],
  ];
}
