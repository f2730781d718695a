'use strict';

// The MCP server's file tools, driven over stdio by the SDK's client as an agent client would:
// every tool, the official server's names and parameters, the escape attacks as tool calls, a
// read-only mount, bounded replies, and no host path in any reply. A few checks that need to look
// inside (how many bytes a tail reads, cancellation of a walk) call the handlers in-process.
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');
const { makeTempLayout, removeDir, testNeeding } = require('./helpers');

const withGit = testNeeding(require('child_process').spawnSync('git', ['--version']).status === 0 ? null : 'git is not installed');
const { startServer, textOf } = require('./helpers/mcp-client');
const { createMountSandbox, createTestSandbox } = require('../lib');

const tools = require('../mcp/lib/tools/files');
const { DEFAULT_LIMITS } = require('../mcp/lib/server');

jest.setTimeout(60000);

const OFFICIAL = {
  read_file: ['path', 'head', 'tail'],
  read_text_file: ['path', 'head', 'tail'],
  read_media_file: ['path'],
  read_multiple_files: ['paths'],
  write_file: ['path', 'content'],
  edit_file: ['path', 'edits', 'dryRun'],
  create_directory: ['path'],
  list_directory: ['path'],
  list_directory_with_sizes: ['path', 'sortBy'],
  directory_tree: ['path', 'excludePatterns'],
  move_file: ['source', 'destination'],
  search_files: ['path', 'pattern', 'excludePatterns'],
  get_file_info: ['path'],
  list_allowed_directories: [],
};
const ADDED = ['delete_file', 'copy_file', 'explain_path'];
// The command tools (mcp/lib/tools/exec.js, test/mcp-exec.test.js) are served beside these.
const COMMAND_TOOLS = ['exec', 'grep_files'];
const WRITE_TOOLS = ['write_file', 'edit_file', 'create_directory', 'move_file', 'delete_file', 'copy_file'];
const SECRET = 'TOP-SECRET-4f1d9c';

let layout;
let server;
const replies = []; // every reply's JSON, scanned for host paths at the end

function seed() {
  layout = makeTempLayout(['proj', 'proj-secrets', 'outside', 'ro-src']);
  for (const dir of ['proj', 'proj-secrets', 'outside', 'ro-src']) fs.mkdirSync(layout[dir]);
  fs.writeFileSync(path.join(layout.outside, 'secret.txt'), SECRET);
  fs.writeFileSync(path.join(layout['proj-secrets'], 'secret.txt'), SECRET);
  fs.writeFileSync(path.join(layout['ro-src'], 'data.txt'), 'read-only data\n');
  fs.writeFileSync(path.join(layout.proj, 'hello.txt'), 'hello\nworld\n');
}

async function call(name, args = {}) {
  const result = await server.client.callTool({ name, arguments: args });
  replies.push({ args: JSON.stringify(args), reply: JSON.stringify(result) });
  return result;
}

const inProj = (...parts) => path.join(layout.proj, ...parts);

function outsideFiles() {
  const out = {};
  for (const dir of ['outside', 'proj-secrets', 'ro-src']) {
    for (const name of fs.readdirSync(layout[dir])) out[`${dir}/${name}`] = fs.readFileSync(path.join(layout[dir], name), 'utf8');
  }
  return out;
}

beforeAll(async () => {
  seed();
  server = await startServer(['--root', layout.proj, '--mount', `${layout['ro-src']}:/ro:ro`]);
});

afterAll(async () => {
  await server?.close();
  removeDir(layout.base);
});

describe('the tool list', () => {
  test('has the official server\'s 14 tools with their parameters, and delete_file, copy_file, explain_path', async () => {
    const { tools: listed } = await server.client.listTools();
    replies.push({ args: '', reply: JSON.stringify(listed) });
    const byName = Object.fromEntries(listed.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([...Object.keys(OFFICIAL), ...ADDED, ...COMMAND_TOOLS].sort());
    for (const [name, params] of Object.entries(OFFICIAL)) {
      const props = Object.keys(byName[name].inputSchema.properties ?? {});
      for (const p of params) expect([name, props.includes(p)]).toEqual([name, true]);
    }
    expect(byName.edit_file.inputSchema.properties.edits.items.required).toEqual(['oldText', 'newText']);
  });

  test('every tool carries the four hints, openWorldHint false, readOnlyHint false exactly on the write tools', async () => {
    const { tools: served } = await server.client.listTools();
    const listed = served.filter((t) => !COMMAND_TOOLS.includes(t.name));
    expect(listed).toHaveLength(served.length - COMMAND_TOOLS.length);
    for (const t of listed) {
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        expect([t.name, hint, typeof t.annotations[hint]]).toEqual([t.name, hint, 'boolean']);
      }
      expect([t.name, t.annotations.openWorldHint]).toEqual([t.name, false]);
      expect([t.name, t.annotations.readOnlyHint]).toEqual([t.name, !WRITE_TOOLS.includes(t.name)]);
    }
    for (const t of tools) expect([t.name, t.writes]).toEqual([t.name, WRITE_TOOLS.includes(t.name)]);
  });
});

describe('reading', () => {
  test('read_text_file reads a file; read_file is the same', async () => {
    expect(textOf(await call('read_text_file', { path: '/hello.txt' }))).toBe('hello\nworld\n');
    expect(textOf(await call('read_file', { path: '/hello.txt' }))).toBe('hello\nworld\n');
    expect(textOf(await call('read_text_file', { path: 'hello.txt' }))).toBe('hello\nworld\n'); // relative: from "/"
  });

  test('head, tail, offset/length', async () => {
    fs.writeFileSync(inProj('lines.txt'), 'l1\nl2\nl3\nl4\nl5\n');
    expect(textOf(await call('read_text_file', { path: '/lines.txt', head: 2 }))).toBe('l1\nl2\n');
    expect(textOf(await call('read_text_file', { path: '/lines.txt', tail: 2 }))).toBe('l4\nl5\n');
    expect(textOf(await call('read_text_file', { path: '/lines.txt', tail: 9 }))).toBe('l1\nl2\nl3\nl4\nl5\n');
    expect(textOf(await call('read_text_file', { path: '/lines.txt', offset: 3, length: 5 }))).toBe('l2\nl3');
    const both = await call('read_text_file', { path: '/lines.txt', head: 1, tail: 1 });
    expect(both.isError).toBe(true);
    expect(both.structuredContent.code).toBe('INVALID_ARGUMENT');
    expect(textOf(both)).toMatch(/head and tail/);
  });

  test('a file over the cap comes back cut, with a note saying how to read the rest, which reads it all', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const big = line.repeat(Math.ceil((DEFAULT_LIMITS.maxReadBytes * 2.5) / line.length));
    fs.writeFileSync(inProj('big.txt'), big);
    let offset = 0;
    let got = '';
    for (let i = 0; i < 10 && offset < big.length; i++) {
      const r = await call('read_text_file', { path: '/big.txt', offset });
      expect(Buffer.byteLength(textOf(r))).toBeLessThanOrEqual(DEFAULT_LIMITS.maxReadBytes + 400);
      got += r.structuredContent.content;
      if (r.structuredContent.nextOffset === null) break;
      expect(textOf(r)).toMatch(new RegExp(`Truncated: .*offset ${r.structuredContent.nextOffset}`));
      offset = r.structuredContent.nextOffset;
    }
    expect(got).toBe(big);
    const head = await call('read_text_file', { path: '/big.txt', head: 1000000 });
    expect(Buffer.byteLength(textOf(head))).toBeLessThanOrEqual(DEFAULT_LIMITS.maxReadBytes + 400);
    expect(textOf(head)).toMatch(/Truncated/);
  });

  test('read_media_file: images and audio as such, other files as a resource with a virtual URI', async () => {
    fs.writeFileSync(inProj('p.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
    fs.writeFileSync(inProj('s.wav'), Buffer.from('RIFF....WAVE'));
    fs.writeFileSync(inProj('b.bin'), Buffer.from([0, 255, 7]));
    const png = await call('read_media_file', { path: '/p.png' });
    expect(png.content[0]).toEqual({ type: 'image', mimeType: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]).toString('base64') });
    expect((await call('read_media_file', { path: '/s.wav' })).content[0]).toMatchObject({ type: 'audio', mimeType: 'audio/wav' });
    const bin = await call('read_media_file', { path: '/b.bin' });
    expect(bin.content[0].type).toBe('resource');
    expect(bin.content[0].resource).toEqual({ uri: 'sandbox:///b.bin', mimeType: 'application/octet-stream', blob: Buffer.from([0, 255, 7]).toString('base64') });
  });

  test('read_media_file refuses a file over its cap rather than sending a part', async () => {
    fs.writeFileSync(inProj('huge.png'), Buffer.alloc(5 * 1024 * 1024 + 1));
    const r = await call('read_media_file', { path: '/huge.png' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.code).toBe('TOO_LARGE');
    fs.unlinkSync(inProj('huge.png'));
  });

  test('read_multiple_files: errors inline, the other files still read', async () => {
    const r = await call('read_multiple_files', { paths: ['/hello.txt', '/missing.txt', '/ro/data.txt'] });
    expect(r.isError).toBeFalsy();
    const t = textOf(r);
    const mark = /==== ([0-9a-f]{12}) <path> ====/.exec(t)[1];
    expect(t).toContain(`==== ${mark} /hello.txt ====\nhello\nworld\n`);
    expect(t).toContain(`==== ${mark} /missing.txt ====\nError: File not found: /missing.txt`);
    expect(t.split('/missing.txt')).toHaveLength(3); // the header and the message name it, once each
    expect(t).toContain(`==== ${mark} /ro/data.txt ====\nread-only data\n`);
  });
});

describe('changing', () => {
  test('write_file creates parents and replaces', async () => {
    expect(textOf(await call('write_file', { path: '/new/dir/a.txt', content: 'one' }))).toMatch(/wrote 3 bytes to \/new\/dir\/a\.txt/);
    await call('write_file', { path: '/new/dir/a.txt', content: 'two' });
    expect(fs.readFileSync(inProj('new/dir/a.txt'), 'utf8')).toBe('two');
  });

  test('edit_file: exact-once edits in order with a unified diff; dryRun writes nothing', async () => {
    fs.writeFileSync(inProj('e.txt'), 'alpha\nbeta\ngamma\n');
    const dry = await call('edit_file', { path: '/e.txt', edits: [{ oldText: 'beta', newText: 'BETA' }], dryRun: true });
    expect(textOf(dry)).toContain('-beta\n+BETA');
    expect(fs.readFileSync(inProj('e.txt'), 'utf8')).toBe('alpha\nbeta\ngamma\n');
    const r = await call('edit_file', { path: '/e.txt', edits: [{ oldText: 'beta', newText: 'BETA' }, { oldText: 'gamma\n', newText: 'gamma\ndelta\n' }] });
    expect(r.structuredContent.diff).toBe('diff --git a/e.txt b/e.txt\n--- a/e.txt\n+++ b/e.txt\n@@ -1,3 +1,4 @@\n alpha\n-beta\n+BETA\n gamma\n+delta\n');
    expect(fs.readFileSync(inProj('e.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\ndelta\n');
  });

  test('edit_file: no match or several matches name the edit and change nothing; no whitespace-flexible matching', async () => {
    fs.writeFileSync(inProj('m.txt'), 'a = 1\n  b = 2\na = 1\n');
    const twice = await call('edit_file', { path: '/m.txt', edits: [{ oldText: 'b = 2', newText: 'b = 3' }, { oldText: 'a = 1', newText: 'a = 0' }] });
    expect(twice.isError).toBe(true);
    expect(twice.structuredContent.code).toBe('AMBIGUOUS_MATCH');
    expect(textOf(twice)).toMatch(/edit 2 of 2 .*occurs 2 times/);
    const loose = await call('edit_file', { path: '/m.txt', edits: [{ oldText: 'b = 2\n  a = 1', newText: 'x' }] });
    expect(loose.structuredContent.code).toBe('NO_MATCH');
    expect(textOf(loose)).toMatch(/the edit failed: .*exact/);
    expect(fs.readFileSync(inProj('m.txt'), 'utf8')).toBe('a = 1\n  b = 2\na = 1\n');
  });

  test('edit_file refuses a file that is not UTF-8 (its bytes would change) and keeps a byte order mark', async () => {
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in Latin-1
    fs.writeFileSync(inProj('l1.txt'), latin1);
    const r = await call('edit_file', { path: '/l1.txt', edits: [{ oldText: 'caf', newText: 'CAF' }] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/not UTF-8 text/);
    expect(fs.readFileSync(inProj('l1.txt'))).toEqual(latin1);
    fs.writeFileSync(inProj('bom.txt'), '\uFEFFkey=1\n');
    await call('edit_file', { path: '/bom.txt', edits: [{ oldText: 'key=1', newText: 'key=2' }] });
    expect(fs.readFileSync(inProj('bom.txt'), 'utf8')).toBe('\uFEFFkey=2\n');
  });

  test('edit_file calls in flight together on one file all apply (a changed file is read again)', async () => {
    const lines = Array.from({ length: 8 }, (_, i) => `line ${i}`);
    fs.writeFileSync(inProj('par.txt'), `${lines.join('\n')}\n`);
    const results = await Promise.all(lines.map((l) => call('edit_file', { path: '/par.txt', edits: [{ oldText: `${l}\n`, newText: `${l} edited\n` }] })));
    expect(results.map((r) => r.isError ?? false)).toEqual(lines.map(() => false));
    expect(fs.readFileSync(inProj('par.txt'), 'utf8')).toBe(lines.map((l) => `${l} edited\n`).join(''));
    const none = await call('edit_file', { path: '/par.txt', edits: [] });
    expect(none.structuredContent.code).toBe('INVALID_ARGUMENT');
  });

  test('create_directory is mkdir -p and fine when it exists', async () => {
    await call('create_directory', { path: '/d1/d2/d3' });
    expect((await call('create_directory', { path: '/d1/d2/d3' })).isError).toBeFalsy();
    expect(fs.statSync(inProj('d1/d2/d3')).isDirectory()).toBe(true);
  });

  test('move_file refuses to overwrite, copy_file only with overwrite, delete_file deletes files only', async () => {
    fs.writeFileSync(inProj('mv-a.txt'), 'A');
    fs.writeFileSync(inProj('mv-b.txt'), 'B');
    const refused = await call('move_file', { source: '/mv-a.txt', destination: '/mv-b.txt' });
    expect(refused.structuredContent.code).toBe('ALREADY_EXISTS');
    expect(fs.readFileSync(inProj('mv-b.txt'), 'utf8')).toBe('B');
    await call('move_file', { source: '/mv-a.txt', destination: '/moved/a.txt' });
    expect(fs.existsSync(inProj('mv-a.txt'))).toBe(false);
    expect(fs.readFileSync(inProj('moved/a.txt'), 'utf8')).toBe('A');
    expect((await call('copy_file', { source: '/moved/a.txt', destination: '/mv-b.txt' })).structuredContent.code).toBe('ALREADY_EXISTS');
    await call('copy_file', { source: '/moved/a.txt', destination: '/mv-b.txt', overwrite: true });
    expect(fs.readFileSync(inProj('mv-b.txt'), 'utf8')).toBe('A');
    await call('copy_file', { source: '/ro/data.txt', destination: '/copied.txt' }); // from a read-only mount
    expect(fs.readFileSync(inProj('copied.txt'), 'utf8')).toBe('read-only data\n');
    await call('delete_file', { path: '/mv-b.txt' });
    expect(fs.existsSync(inProj('mv-b.txt'))).toBe(false);
    expect((await call('delete_file', { path: '/moved' })).isError).toBe(true);
    expect(fs.existsSync(inProj('moved/a.txt'))).toBe(true);
  });
});

describe('listing and finding', () => {
  beforeAll(() => {
    fs.mkdirSync(inProj('tree/src/lib'), { recursive: true });
    fs.mkdirSync(inProj('tree/node_modules/x'), { recursive: true });
    fs.writeFileSync(inProj('tree/src/a.ts'), 'a');
    fs.writeFileSync(inProj('tree/src/lib/b.ts'), 'bb');
    fs.writeFileSync(inProj('tree/src/lib/c.log'), 'ccc');
    fs.writeFileSync(inProj('tree/node_modules/x/i.ts'), 'i');
    fs.writeFileSync(inProj('tree/big.bin'), Buffer.alloc(5000));
  });

  test('list_directory and list_directory_with_sizes', async () => {
    expect(textOf(await call('list_directory', { path: '/tree' }))).toBe('[FILE] big.bin\n[DIR] node_modules\n[DIR] src');
    const sized = textOf(await call('list_directory_with_sizes', { path: '/tree/src/lib', sortBy: 'size' }));
    expect(sized.split('\n').slice(0, 2).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['[FILE] c.log', '[FILE] b.ts']);
    expect(sized).toMatch(/Total: 2 files, 0 directories\nCombined size: 5 B/);
    expect(textOf(await call('list_directory', { path: '/' }))).toMatch(/\[DIR\] ro/); // mount points show
  });

  test('directory_tree with excludePatterns by name and by relative path', async () => {
    const tree = JSON.parse(textOf(await call('directory_tree', { path: '/tree', excludePatterns: ['node_modules', '*.log', 'big.bin'] })));
    expect(tree).toEqual([{ name: 'src', type: 'directory', children: [{ name: 'a.ts', type: 'file' }, { name: 'lib', type: 'directory', children: [{ name: 'b.ts', type: 'file' }] }] }]);
    const byPath = JSON.parse(textOf(await call('directory_tree', { path: '/tree/src', excludePatterns: ['lib/**'] })));
    expect(byPath).toEqual([{ name: 'a.ts', type: 'file' }, { name: 'lib', type: 'directory', children: [] }]);
  });

  test('search_files with a glob and excludes', async () => {
    const r = await call('search_files', { path: '/tree', pattern: '**/*.ts', excludePatterns: ['node_modules'] });
    expect(textOf(r)).toBe('/tree/src/a.ts\n/tree/src/lib/b.ts');
    expect(textOf(await call('search_files', { path: '/tree', pattern: '*.ts' }))).toBe('No matches found');
    fs.mkdirSync(inProj('odd[1]{x}'));
    fs.writeFileSync(inProj('odd[1]{x}/q.ts'), '');
    fs.mkdirSync(inProj('odd1x'));
    fs.writeFileSync(inProj('odd1x/decoy.ts'), '');
    expect(textOf(await call('search_files', { path: '/odd[1]{x}', pattern: '*.ts' }))).toBe('/odd[1]{x}/q.ts');
  });

  test('get_file_info', async () => {
    const r = await call('get_file_info', { path: '/tree/src/lib/c.log' });
    expect(r.structuredContent).toMatchObject({ size: 3, isDirectory: false, isFile: true, writable: true });
    expect(textOf(r)).toMatch(/^size: 3\ncreated: .*\nmodified: /);
    expect((await call('get_file_info', { path: '/ro/data.txt' })).structuredContent.writable).toBe(false);
  });

  test('list_allowed_directories: the mount table, virtual and marked read-only', async () => {
    const r = await call('list_allowed_directories');
    expect(r.structuredContent.directories).toEqual([{ path: '/', readOnly: false }, { path: '/ro', readOnly: true }]);
    expect(textOf(r)).toMatch(/^\/ \(read-write.*\n\/ro \(read-only/m);
  });

  test('explain_path: the mount, read-only or not, what each operation would do', async () => {
    const ro = await call('explain_path', { path: '/ro/data.txt' });
    expect(ro.structuredContent).toMatchObject({ path: '/ro/data.txt', mount: '/ro', readOnly: true, exists: true, write: 'refused', delete: 'refused' });
    expect(textOf(ro)).toMatch(/the mount at \/ro, which is read-only/);
    expect(textOf(ro)).toMatch(/Write: refused: Cannot write to \/ro\/data\.txt: this location is read-only/);
    const rw = await call('explain_path', { path: '/a/../hello.txt' });
    expect(rw.structuredContent).toMatchObject({ path: '/hello.txt', mount: '/', readOnly: false, exists: true });
    expect(rw.structuredContent.write).not.toBe('refused');
    const out = await call('explain_path', { path: '/../outside/secret.txt' });
    expect(out.structuredContent).toEqual({ inside: false });
  });
});

describe('read-only mounts', () => {
  test('every write tool is refused with isError, the LLM message and the code; the file is unchanged', async () => {
    const before = fs.readFileSync(path.join(layout['ro-src'], 'data.txt'), 'utf8');
    const attempts = [
      ['write_file', { path: '/ro/data.txt', content: 'x' }],
      ['write_file', { path: '/ro/new.txt', content: 'x' }],
      ['edit_file', { path: '/ro/data.txt', edits: [{ oldText: 'data', newText: 'x' }] }],
      ['create_directory', { path: '/ro/sub' }],
      ['delete_file', { path: '/ro/data.txt' }],
      ['move_file', { source: '/ro/data.txt', destination: '/taken.txt' }],
      ['copy_file', { source: '/hello.txt', destination: '/ro/copy.txt' }],
    ];
    for (const [name, args] of attempts) {
      const r = await call(name, args);
      expect([name, r.isError]).toEqual([name, true]);
      expect([name, r.structuredContent.code]).toEqual([name, 'READ_ONLY']);
      expect(textOf(r)).toMatch(/read-only/);
    }
    expect(fs.readdirSync(layout['ro-src'])).toEqual(['data.txt']);
    expect(fs.readFileSync(path.join(layout['ro-src'], 'data.txt'), 'utf8')).toBe(before);
  });
});

describe('escape attacks as tool calls', () => {
  let before;
  beforeAll(() => {
    before = outsideFiles();
    fs.symlinkSync(path.join(layout.outside, 'secret.txt'), inProj('link-file'));
    fs.symlinkSync(layout.outside, inProj('link-dir'));
    fs.symlinkSync('../proj-secrets', inProj('link-sibling'));
  });
  afterEach(() => {
    expect(outsideFiles()).toEqual(before);
  });

  const expectRefused = (r) => {
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r)).not.toContain(SECRET);
  };

  test('.. out of the root, for reading and writing', async () => {
    for (const p of ['/../outside/secret.txt', '../outside/secret.txt', '/a/../../outside/secret.txt', '/ro/../../outside/secret.txt']) {
      expectRefused(await call('read_text_file', { path: p }));
      expectRefused(await call('read_media_file', { path: p }));
      expectRefused(await call('write_file', { path: p, content: 'pwned' }));
      expectRefused(await call('copy_file', { source: p, destination: '/stolen.txt' }));
    }
    expect(JSON.stringify(await call('read_multiple_files', { paths: ['/../outside/secret.txt'] }))).not.toContain(SECRET);
    expectRefused(await call('write_file', { path: '/../outside/new.txt', content: 'pwned' }));
    expect(fs.existsSync(path.join(layout.outside, 'new.txt'))).toBe(false);
    expect(fs.existsSync(inProj('stolen.txt'))).toBe(false);
  });

  test('absolute host paths name virtual paths, not the host', async () => {
    const host = path.join(layout.outside, 'secret.txt');
    expectRefused(await call('read_text_file', { path: host }));
    expectRefused(await call('copy_file', { source: host, destination: '/stolen.txt' }));
    const w = await call('write_file', { path: path.join(layout.outside, 'new.txt'), content: 'inside' });
    expect(w.isError).toBeFalsy(); // lands inside the sandbox, at that virtual path
    expect(fs.existsSync(path.join(layout.outside, 'new.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(layout.proj, layout.outside, 'new.txt'), 'utf8')).toBe('inside');
    fs.rmSync(path.join(layout.proj, layout.base.split('/')[1]), { recursive: true });
  });

  test('a symlink out, for reading', async () => {
    for (const p of ['/link-file', '/link-dir/secret.txt', '/link-sibling/secret.txt']) {
      expectRefused(await call('read_text_file', { path: p }));
      expectRefused(await call('read_text_file', { path: p, tail: 1 }));
      expectRefused(await call('read_media_file', { path: p }));
      expectRefused(await call('copy_file', { source: p, destination: '/stolen.txt' }));
      expectRefused(await call('edit_file', { path: p, edits: [{ oldText: 'TOP', newText: 'x' }], dryRun: true }));
    }
    for (const p of ['/link-dir', '/link-sibling']) {
      expectRefused(await call('list_directory', { path: p }));
      expectRefused(await call('directory_tree', { path: p }));
    }
    expect(textOf(await call('search_files', { path: '/', pattern: '**/secret*' }))).toBe('No matches found');
    expect(textOf(await call('list_directory', { path: '/' }))).toMatch(/^\[OTHER\] link-dir$/m);
    expect(fs.existsSync(inProj('stolen.txt'))).toBe(false);
  });

  test('a symlink out, for writing: never written through', async () => {
    for (const [name, args] of [
      ['write_file', { path: '/link-dir/new.txt', content: 'pwned' }],
      ['write_file', { path: '/link-sibling/secret.txt', content: 'pwned' }],
      ['edit_file', { path: '/link-file', edits: [{ oldText: 'TOP', newText: 'pwned' }] }],
      ['create_directory', { path: '/link-dir/sub' }],
      ['copy_file', { source: '/hello.txt', destination: '/link-dir/copy.txt' }],
      ['move_file', { source: '/hello.txt', destination: '/link-sibling/moved.txt' }],
      ['delete_file', { path: '/link-dir/secret.txt' }],
    ]) {
      expect([name, (await call(name, args)).isError]).toEqual([name, true]);
    }
    // Writing at the symlink's own name replaces the link inside the sandbox, never its target.
    const atLink = await call('write_file', { path: '/link-file', content: 'replaced' });
    expect(atLink.isError).toBeFalsy();
    expect(fs.lstatSync(inProj('link-file')).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(inProj('link-file'), 'utf8')).toBe('replaced');
    expect(fs.existsSync(inProj('hello.txt'))).toBe(true);
  });

  test('a sibling directory sharing the root\'s name prefix is outside', async () => {
    expect(path.basename(layout['proj-secrets']).startsWith(path.basename(layout.proj))).toBe(true);
    for (const p of ['/../proj-secrets/secret.txt', `${layout['proj-secrets']}/secret.txt`, 'proj/../../proj-secrets/secret.txt']) {
      expectRefused(await call('read_text_file', { path: p }));
      await call('write_file', { path: `${p}.new`, content: 'pwned' }); // refused, or lands inside at that virtual path
      expectRefused(await call('edit_file', { path: p, edits: [{ oldText: 'TOP', newText: 'pwned' }] }));
    }
    expectRefused(await call('read_text_file', { path: '/link-sibling/secret.txt' }));
    expect(fs.readdirSync(layout['proj-secrets'])).toEqual(['secret.txt']);
    fs.rmSync(path.join(layout.proj, layout.base.split('/')[1]), { recursive: true, force: true });
  });

  test('a directory swapped for a symlink out, in a loop, during reads and writes', async () => {
    const dir = inProj('swap');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'inside\n');
    fs.writeFileSync(path.join(layout.outside, 'w.txt'), 'outside original');
    before = outsideFiles();
    // A separate process swaps proj/swap between the real directory and a symlink to outside/.
    const swapper = spawn(process.execPath, ['-e', `
      const fs = require('fs');
      const [dir, real, out] = process.argv.slice(1);
      const end = Date.now() + 8000;
      while (Date.now() < end) {
        try { fs.renameSync(dir, real); fs.symlinkSync(out, dir); } catch {}
        try { fs.unlinkSync(dir); fs.renameSync(real, dir); } catch {}
      }
    `, dir, path.join(layout.base, 'swap-real'), layout.outside], { stdio: 'ignore' });
    const exited = new Promise((resolve) => swapper.on('exit', resolve));
    let reads = 0;
    let inside = 0;
    const deadline = Date.now() + 6000;
    while (Date.now() < deadline) {
      const calls = [
        call('read_text_file', { path: '/swap/secret.txt' }),
        call('read_text_file', { path: '/swap/secret.txt', tail: 1 }),
        call('read_multiple_files', { paths: ['/swap/secret.txt'] }),
        call('write_file', { path: '/swap/w.txt', content: 'pwned' }),
        call('edit_file', { path: '/swap/w.txt', edits: [{ oldText: 'outside original', newText: 'pwned' }] }),
        call('copy_file', { source: '/swap/secret.txt', destination: '/stolen.txt', overwrite: true }),
      ];
      for (const r of await Promise.all(calls)) {
        reads++;
        const json = JSON.stringify(r);
        expect(json).not.toContain(SECRET);
        if (json.includes('inside\\n')) inside++;
      }
      expect(fs.readFileSync(path.join(layout.outside, 'w.txt'), 'utf8')).toBe('outside original');
    }
    swapper.kill();
    await exited;
    expect(reads).toBeGreaterThan(60);
    expect(inside).toBeGreaterThan(0); // the loop did let reads through when the directory was real
    if (fs.existsSync(inProj('stolen.txt'))) expect(fs.readFileSync(inProj('stolen.txt'), 'utf8')).not.toContain(SECRET);
  });
});

describe('bounded replies', () => {
  beforeAll(() => {
    const many = inProj('many');
    fs.mkdirSync(many);
    for (let i = 0; i < DEFAULT_LIMITS.maxEntries + 300; i++) fs.writeFileSync(path.join(many, `f${String(i).padStart(5, '0')}.txt`), '');
    let deep = inProj('deep');
    for (let i = 0; i < DEFAULT_LIMITS.maxDepth + 3; i++) deep = path.join(deep, `d${i}`);
    fs.mkdirSync(deep, { recursive: true });
  });

  test('a big directory: list_directory, directory_tree and search_files stop at the bound and say so', async () => {
    const list = textOf(await call('list_directory', { path: '/many' }));
    expect(list.split('\n').filter((l) => l.startsWith('[FILE]'))).toHaveLength(DEFAULT_LIMITS.maxEntries);
    expect(list).toMatch(/Truncated: 300 more entries/);
    const tree = textOf(await call('directory_tree', { path: '/many' }));
    expect(tree).toMatch(/\[Truncated: stopped after 1000 entries/);
    expect(Buffer.byteLength(tree)).toBeLessThanOrEqual(DEFAULT_LIMITS.maxOutputBytes + 500);
    expect(JSON.parse(tree.slice(0, tree.indexOf('\n[Truncated'))).length).toBeGreaterThan(100);
    const found = await call('search_files', { path: '/many', pattern: '*.txt' });
    expect(found.structuredContent.truncated).toBe(true);
    expect(found.structuredContent.paths.length).toBeLessThanOrEqual(DEFAULT_LIMITS.maxEntries);
    expect(textOf(found)).toMatch(/Truncated: more may match/);
  });

  test('long names: the tree stops at the reply\'s size bound as whole JSON, the listing at a whole line', async () => {
    const long = inProj('long');
    fs.mkdirSync(long);
    for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(long, `${'n'.repeat(200)}${i}`), '');
    const tree = textOf(await call('directory_tree', { path: '/long' }));
    expect(Buffer.byteLength(tree)).toBeLessThanOrEqual(DEFAULT_LIMITS.maxOutputBytes + 500);
    expect(tree).toMatch(/at the reply's size bound/);
    const list = textOf(await call('list_directory', { path: '/long' }));
    expect(Buffer.byteLength(list)).toBeLessThanOrEqual(DEFAULT_LIMITS.maxOutputBytes + 200);
    expect(list).toMatch(/\n\[FILE\] n+\d+\n\[Truncated at \d+ bytes, the reply's bound/);
    expect(JSON.parse(tree.slice(0, tree.indexOf('\n[Truncated'))).length).toBeGreaterThan(100);
  });

  test('a deep tree is cut at the depth bound, marked truncated', async () => {
    const text = textOf(await call('directory_tree', { path: '/deep' }));
    expect(text).toMatch(/"truncated": true/);
    expect(text).toMatch(/levels down are not expanded/);
  });

  test('read_multiple_files shares one cap', async () => {
    const r = textOf(await call('read_multiple_files', { paths: ['/big.txt', '/big.txt', '/hello.txt'] }));
    expect(Buffer.byteLength(r)).toBeLessThanOrEqual(DEFAULT_LIMITS.maxReadBytes + 2000);
    expect(r).toMatch(/\/hello\.txt ====\nnot read: the reply reached its/);
  });
});

describe('no host path in any reply', () => {
  test('nothing the server said names the temp directory', () => {
    // A host path the caller itself passed (as a virtual path) may come back as it was written;
    // every other reply must not name any host directory, nor any part of the temp dir's name.
    const hostBits = [layout.base, path.basename(layout.base), layout['ro-src']];
    const unprompted = replies.filter(({ args }) => !hostBits.some((h) => args.includes(h)));
    expect(unprompted.length).toBeGreaterThan(100);
    expect(unprompted.filter(({ reply }) => hostBits.some((h) => reply.includes(h)))).toEqual([]);
  });
});

describe('in-process bounds', () => {
  const T = Object.fromEntries(tools.map((t) => [t.name, t]));
  const ctxFor = (sandbox, extra = {}) => ({ sandbox, signal: new AbortController().signal, progress() {}, limits: { ...DEFAULT_LIMITS }, ...extra });

  test('tail and head of a 4 MB file read only a chunk or two', async () => {
    const sandbox = await createTestSandbox();
    const line = `${'y'.repeat(79)}\n`;
    await sandbox.write('/big.log', `${line.repeat(50000)}last line\n`);
    let bytesRead = 0;
    const counting = Object.create(sandbox);
    counting.readBinary = async (p, range) => {
      const b = await sandbox.readBinary(p, range);
      bytesRead += b.length;
      return b;
    };
    counting.stat = (p) => sandbox.stat(p);
    const tail = await T.read_text_file.handler({ path: '/big.log', tail: 10 }, ctxFor(counting));
    expect(tail.content[0].text).toBe(`${line.repeat(9)}last line\n`);
    expect(bytesRead).toBeLessThanOrEqual(64 * 1024);
    bytesRead = 0;
    const head = await T.read_text_file.handler({ path: '/big.log', head: 10 }, ctxFor(counting));
    expect(head.content[0].text).toBe(line.repeat(10));
    expect(bytesRead).toBeLessThanOrEqual(64 * 1024);
  });

  test('edit_file: a file changed between its read and its write is read again, never overwritten', async () => {
    const sandbox = await createTestSandbox();
    await sandbox.write('/c.txt', 'a\nb\n');
    let interfere = 2; // another writer changes the file right after each of the first two reads
    const racing = Object.create(sandbox);
    racing.stat = (p) => sandbox.stat(p);
    racing.write = (p, c, o) => sandbox.write(p, c, o);
    racing.readBinary = async (p, range) => {
      const bytes = await sandbox.readBinary(p, range);
      if (interfere-- > 0) fs.appendFileSync(sandbox.resolve(p), `other ${interfere}\n`);
      return bytes;
    };
    const r = await T.edit_file.handler({ path: '/c.txt', edits: [{ oldText: 'a\n', newText: 'A\n' }] }, ctxFor(racing));
    expect(r.structuredContent.applied).toBe(true);
    expect(await sandbox.read('/c.txt')).toBe('A\nb\nother 1\nother 0\n');
    interfere = 3; // changed after every read: refused, the other writer's content kept
    await expect(T.edit_file.handler({ path: '/c.txt', edits: [{ oldText: 'b\n', newText: 'B\n' }] }, ctxFor(racing))).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await sandbox.read('/c.txt')).toBe('A\nb\nother 1\nother 0\nother 2\nother 1\nother 0\n');
  });

  withGit('edit_file\'s diff, applied by git apply, turns the old text into the new, and is no longer than GNU diff\'s', () => {
    const { unifiedDiff } = require('../mcp/lib/tools/files/edit/diff');
    const { execFileSync } = require('child_process');
    const dir = makeTempLayout([]);
    const file = path.join(dir.base, 'f');
    let seed = 7;
    const rand = (n) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const changed = (diff) => diff.split('\n').filter((l) => /^[-+]/.test(l) && !/^(?:---|\+\+\+) /.test(l)).length;
    for (let round = 0; round < 40; round++) {
      const before = Array.from({ length: 5 + rand(60) }, () => `w${rand(6)}`);
      const after = [...before];
      for (let k = rand(6); k >= 0; k--) {
        const at = rand(after.length + 1);
        if (rand(2)) after.splice(at, rand(3) + 1);
        else after.splice(at, 0, ...Array.from({ length: rand(3) + 1 }, () => `n${rand(4)}`));
      }
      const [a, b] = [`${before.join('\n')}\n`, `${after.join('\n')}\n`];
      const ours = unifiedDiff(a, b, '/f');
      fs.writeFileSync(file, a);
      execFileSync('git', ['apply', '--unidiff-zero', '-'], { cwd: dir.base, input: ours });
      expect(fs.readFileSync(file, 'utf8')).toBe(b);
      // Each hunk's ranges name exactly the lines it shows, in the old text and in the new.
      for (const hunk of ours.split(/^(?=@@ )/m).slice(1)) {
        const [, os, oc = '1', ns, nc = '1'] = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(hunk);
        const body = hunk.split('\n').slice(1, -1);
        const oldLines = body.filter((l) => l[0] !== '+').map((l) => l.slice(1));
        const newLines = body.filter((l) => l[0] !== '-').map((l) => l.slice(1));
        const from = (start, count) => (Number(count) === 0 ? Number(start) : Number(start) - 1);
        expect(oldLines).toEqual(before.slice(from(os, oc), from(os, oc) + Number(oc)));
        expect(newLines).toEqual(after.slice(from(ns, nc), from(ns, nc) + Number(nc)));
      }
      fs.writeFileSync(file, a);
      fs.writeFileSync(`${file}.new`, b);
      let gnu = '';
      try {
        execFileSync('diff', ['-u', file, `${file}.new`], { encoding: 'utf8' });
      } catch (error) {
        gnu = error.stdout;
      }
      expect(changed(ours)).toBeLessThanOrEqual(changed(gnu));
    }
    removeDir(dir.base);
  });

  test('a walk stops when the request is cancelled, and reports progress', async () => {
    const sandbox = await createTestSandbox();
    for (let i = 0; i < 150; i++) await sandbox.write(`/t/d${i}/f.txt`, '');
    const controller = new AbortController();
    const seen = [];
    const ctx = ctxFor(sandbox, { signal: controller.signal, progress: (n) => seen.push(n), limits: { ...DEFAULT_LIMITS, maxEntries: 100000 } });
    const done = await T.directory_tree.handler({ path: '/t' }, ctx);
    expect(JSON.parse(done.content[0].text)).toHaveLength(150);
    expect(seen).toEqual([200]);
    controller.abort();
    await expect(T.directory_tree.handler({ path: '/t' }, ctx)).rejects.toThrow(/abort/i);
    await expect(T.search_files.handler({ path: '/t', pattern: '**' }, ctx)).rejects.toThrow(/abort/i);
  });

  test('a read-only sandbox: mount table and refusals', async () => {
    const base = makeTempLayout(['r']);
    fs.mkdirSync(base.r);
    const sandbox = createMountSandbox({ root: base.r, readonly: true });
    const r = await T.list_allowed_directories.handler({}, ctxFor(sandbox));
    expect(r.structuredContent.directories).toEqual([{ path: '/', readOnly: true }]);
    expect(r.content[0].text).not.toContain(base.r);
    await expect(T.write_file.handler({ path: '/x', content: '' }, ctxFor(sandbox))).rejects.toMatchObject({ code: 'READ_ONLY' });
    removeDir(base.base);
  });
});
