'use strict';

// mount-sandbox-mcp as a process, driven by the MCP SDK's client over stdio: the tool list and its
// annotations, read-only mode, error mapping, client roots (which may narrow, never widen),
// progress and cancellation, usage errors. The real tools are tested in their own suites; the
// plumbing here is exercised through probe tools (test/helpers/mcp-probe-server.js) served by the
// same command line, sandbox building and server.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { pathToFileURL } = require('url');
const { makeTempLayout, removeDir, write } = require('./helpers');
const { startServer, BIN, PROBE_BIN } = require('./helpers/mcp-client');

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const realTools = () => [...require('../mcp/lib/tools/files'), ...require('../mcp/lib/tools/exec')];

let layout;
let servers;
// Every reply any server gave in a test, as JSON, so that each test also checks that none names
// a host path under the temp layout (except replies to calls that passed one as a virtual path,
// which may echo the path they were given).
let replies;

beforeEach(() => {
  layout = makeTempLayout(['root', 'outside', 'ro'], 'msb-mcp-');
  write(path.join(layout.root, 'a.txt'), 'root file');
  write(path.join(layout.root, 'sub', 'inner.txt'), 'inner file');
  write(path.join(layout.outside, 'secret.txt'), 'outside secret');
  write(path.join(layout.ro, 'r.txt'), 'read-only file');
  fs.symlinkSync(layout.outside, path.join(layout.root, 'link-out'));
  servers = [];
  replies = [];
});

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const reply of replies) expect(reply).not.toContain(layout.base);
  removeDir(layout.base);
});

async function start(args, options) {
  const server = await startServer(args, options);
  servers.push(server);
  const { client } = server;
  const record = (value) => {
    replies.push(JSON.stringify(value));
    return value;
  };
  return {
    ...server,
    listTools: async () => record(await client.listTools()),
    call: async (name, args, requestOptions) => {
      const result = await client.callTool({ name, arguments: args }, requestOptions);
      return JSON.stringify(args).includes(layout.base) ? result : record(result);
    },
    callError: async (name, args) => {
      const error = await client.callTool({ name, arguments: args }).then(() => null, (e) => e);
      if (error) record({ message: error.message, data: error.data, code: error.code });
      return error;
    },
  };
}

const probe = (args, options) => start(args, { ...options, bin: PROBE_BIN });
const text = (result) => result.content.map((c) => c.text).join('\n');

describe('the real server', () => {
  test('starts over stdio and lists every tool it ships, each with the four hints as booleans', async () => {
    const server = await start(['--root', layout.root]);
    const { tools } = await server.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(realTools().map((t) => t.name).sort());
    for (const tool of tools) {
      for (const hint of HINTS) expect([tool.name, hint, typeof tool.annotations?.[hint]]).toEqual([tool.name, hint, 'boolean']);
    }
  });

  test('a read-only sandbox (--read-only, or only read-only mounts) lists no write tool', async () => {
    const expected = realTools().filter((t) => !t.writes).map((t) => t.name).sort();
    for (const args of [['--root', layout.root, '--read-only'], ['--mount', `${layout.ro}:/ro:ro`]]) {
      const server = await start(args);
      const { tools } = await server.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(expected);
    }
  });

  test('an unknown tool is a clean error naming no host path', async () => {
    const server = await start(['--root', layout.root]);
    const error = await server.callError('no_such_tool', {});
    expect(error).not.toBeNull();
    expect(error.message).toMatch(/no_such_tool|not found/i);
    expect(error.message).not.toMatch(/\n\s+at /);
  });

  test('--version and --help print and exit 0', () => {
    const version = spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' });
    expect([version.status, version.stdout.trim()]).toEqual([0, require('../mcp/package.json').version]);
    const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--roots ignore|narrow');
  });

  test.each([
    [[], /no sandbox given/],
    [['--root'], /--root needs a value/],
    [['--bogus'], /unknown option --bogus/],
    [['--root', '.', '--roots', 'widen'], /--roots takes ignore or narrow/],
    [['--mount', 'nocolon'], /--mount needs SRC:\/target/],
    [['--root', '.', '--worker', 'w.worker'], /--worker narrows a --config sandbox/],
    [['--config', 'c.yaml', '--root', '.'], /either --config or --root/],
    [['--root', '.', '--network', '--allow', 'example.com'], /either --network or --allow/],
    [['--config', 'c.yaml', '--network'], /a config's sandbox sets its own network/],
    [['--root', '.', 'stray'], /unexpected argument "stray"/],
  ])('usage error %j exits 2 with its message and the usage', (args, message) => {
    const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', input: '' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage:');
    expect(result.stdout).toBe('');
  });

  test('a --root that is not a directory exits 1 before serving', () => {
    const result = spawnSync(process.execPath, [BIN, '--root', path.join(layout.base, 'missing')], { encoding: 'utf8', input: '' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/--root .*missing: not a directory/);
  });
});

describe('tools and their results (probe tools)', () => {
  test('a sandbox error is a tool result: isError, its toLLMMessage, its code', async () => {
    const server = await probe(['--root', layout.root, '--mount', `${layout.ro}:/ro:ro`]);
    expect(text(await server.call('probe_read', { path: '/a.txt' }))).toBe('root file');
    const missing = await server.call('probe_read', { path: '/nope.txt' });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toEqual({ code: 'NOT_FOUND' });
    expect(text(missing)).toBe('File not found: /nope.txt. Please check the path and try again.');
    const ro = await server.call('probe_write', { path: '/ro/r.txt', content: 'x' });
    expect([ro.isError, ro.structuredContent.code]).toEqual([true, 'READ_ONLY']);
    expect(fs.readFileSync(path.join(layout.ro, 'r.txt'), 'utf8')).toBe('read-only file');
  });

  test('escapes through the probe tools are refused as results naming no host path', async () => {
    const server = await probe(['--root', layout.root]);
    for (const p of ['/../outside/secret.txt', '/link-out/secret.txt', path.join(layout.outside, 'secret.txt'), 'a.txt']) {
      const result = await server.call('probe_read', { path: p });
      expect([p, result.isError]).toEqual([p, true]);
      expect(typeof result.structuredContent.code).toBe('string');
      expect(text(result)).not.toContain('outside secret');
    }
    const written = await server.call('probe_write', { path: '/link-out/secret.txt', content: 'pwned' });
    expect(written.isError).toBe(true);
    expect(fs.readFileSync(path.join(layout.outside, 'secret.txt'), 'utf8')).toBe('outside secret');
  });

  test('an unexpected error is a generic result with no host path; the detail goes to the server log', async () => {
    const server = await probe(['--root', layout.root]);
    const result = await server.call('probe_crash', {});
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ code: 'INTERNAL' });
    expect(text(result)).toMatch(/unexpected internal error/);
    expect(JSON.stringify(result)).not.toContain(layout.root);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.stderr()).toContain('EACCES');
  });

  test('invalid arguments are a clean error naming no host path', async () => {
    const server = await probe(['--root', layout.root]);
    const result = await server.client.callTool({ name: 'probe_read', arguments: { path: 42 } }).catch((e) => ({ thrown: e.message }));
    replies.push(JSON.stringify(result));
    const message = result.thrown ?? text(result);
    expect(result.thrown !== undefined || result.isError === true).toBe(true);
    expect(message).toMatch(/path|invalid|expected/i);
    expect(message).not.toMatch(/\n\s+at /);
  });

  test('write tools are registered for a writable sandbox and left out for a read-only one', async () => {
    const names = async (args) => (await (await probe(args)).listTools()).tools.map((t) => t.name).sort();
    expect(await names(['--root', layout.root])).toEqual(['probe_crash', 'probe_read', 'probe_wait', 'probe_write']);
    expect(await names(['--root', layout.root, '--read-only'])).toEqual(['probe_crash', 'probe_read', 'probe_wait']);
    expect(await names(['--mount', `${layout.ro}:/ro:ro`])).toEqual(['probe_crash', 'probe_read', 'probe_wait']);
  });

  test('--read-only also refuses writes through the library, whatever a tool does', async () => {
    const server = await probe(['--root', layout.root, '--read-only']);
    expect(text(await server.call('probe_read', { path: '/a.txt' }))).toBe('root file');
    const { tools } = await server.listTools();
    expect(tools.some((t) => t.annotations.readOnlyHint === false)).toBe(false);
  });

  test('progress notifications follow the progress token; the result comes after them', async () => {
    const server = await probe(['--root', layout.root]);
    const seen = [];
    const result = await server.call('probe_wait', { steps: 3 }, { onprogress: (p) => seen.push(p) });
    expect(text(result)).toBe('done 3');
    expect(seen.map((p) => [p.progress, p.total, p.message])).toEqual([[1, 3, 'step 1'], [2, 3, 'step 2'], [3, 3, 'step 3']]);
  });

  test('cancelling a request aborts the handler\'s signal', async () => {
    const marker = path.join(layout.base, 'cancelled');
    const server = await probe(['--root', layout.root], { env: { MSB_PROBE_MARKER: marker } });
    const controller = new AbortController();
    let first;
    const progressed = new Promise((resolve) => {
      first = resolve;
    });
    const call = server.client.callTool({ name: 'probe_wait', arguments: { steps: 400 } }, { signal: controller.signal, onprogress: () => first() });
    await progressed;
    controller.abort();
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 100 && !fs.existsSync(marker); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fs.readFileSync(marker, 'utf8')).toBe('aborted');
  });
});

describe('client roots', () => {
  const uri = (p) => pathToFileURL(p).href;

  test('are ignored by default: a root inside the sandbox changes nothing', async () => {
    const server = await probe(['--root', layout.root], { roots: [{ uri: uri(path.join(layout.root, 'sub')) }] });
    expect(text(await server.call('probe_read', { path: '/a.txt' }))).toBe('root file');
  });

  test('--roots narrow: a root inside the sandbox narrows the view to it', async () => {
    const server = await probe(['--root', layout.root, '--roots', 'narrow'], { roots: [{ uri: uri(path.join(layout.root, 'sub')) }] });
    expect(text(await server.call('probe_read', { path: '/inner.txt' }))).toBe('inner file');
    const above = await server.call('probe_read', { path: '/a.txt' });
    expect([above.isError, above.structuredContent.code]).toEqual([true, 'NOT_FOUND']);
  });

  test.each([
    ['a root outside the sandbox', (l) => [l.outside]],
    ["the host's /", () => ['/']],
    ['the directory above the sandbox', (l) => [l.base]],
    ['a symlink inside the sandbox leading out', (l) => [path.join(l.root, 'link-out')]],
    ['a sibling sharing the root\'s name prefix', (l) => [`${l.root}-sibling`]],
  ])('--roots narrow: %s does not widen the view', async (_, roots) => {
    fs.mkdirSync(`${layout.root}-sibling`);
    write(path.join(`${layout.root}-sibling`, 'sib.txt'), 'sibling');
    const server = await probe(['--root', layout.root, '--roots', 'narrow'], { roots: roots(layout).map((p) => ({ uri: uri(p) })) });
    expect(text(await server.call('probe_read', { path: '/a.txt' }))).toBe('root file');
    for (const p of ['/secret.txt', '/sib.txt', path.join(layout.outside, 'secret.txt'), '/../outside/secret.txt', '/../root-sibling/sib.txt']) {
      const result = await server.call('probe_read', { path: p });
      expect([p, result.isError]).toEqual([p, true]);
    }
    const written = await server.call('probe_write', { path: '/secret.txt', content: 'pwned' });
    expect(fs.readFileSync(path.join(layout.outside, 'secret.txt'), 'utf8')).toBe('outside secret');
    if (!written.isError) expect(fs.readFileSync(path.join(layout.root, 'secret.txt'), 'utf8')).toBe('pwned');
  });

  test('--roots narrow: a root inside the sandbox and one outside narrow to the inside one only', async () => {
    const roots = [{ uri: uri(layout.outside) }, { uri: uri(path.join(layout.root, 'sub')) }];
    const server = await probe(['--root', layout.root, '--roots', 'narrow'], { roots });
    expect(text(await server.call('probe_read', { path: '/inner.txt' }))).toBe('inner file');
    expect((await server.call('probe_read', { path: '/secret.txt' })).isError).toBe(true);
  });

  test('--roots narrow: several roots inside narrow to the smallest directory holding them', async () => {
    write(path.join(layout.root, 'sub', 'one', 'x.txt'), 'x');
    write(path.join(layout.root, 'sub', 'two', 'y.txt'), 'y');
    const roots = [{ uri: uri(path.join(layout.root, 'sub', 'one')) }, { uri: uri(path.join(layout.root, 'sub', 'two')) }];
    const server = await probe(['--root', layout.root, '--roots', 'narrow'], { roots });
    expect(text(await server.call('probe_read', { path: '/one/x.txt' }))).toBe('x');
    expect(text(await server.call('probe_read', { path: '/inner.txt' }))).toBe('inner file');
    expect((await server.call('probe_read', { path: '/a.txt' })).isError).toBe(true);
  });

  test('--roots narrow: a changed root list is asked for again, and an outside root then narrows nothing', async () => {
    let roots = [{ uri: uri(path.join(layout.root, 'sub')) }];
    const server = await probe(['--root', layout.root, '--roots', 'narrow'], { roots: () => roots });
    expect(text(await server.call('probe_read', { path: '/inner.txt' }))).toBe('inner file');
    roots = [{ uri: uri(layout.outside) }];
    await server.client.sendRootsListChanged();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(text(await server.call('probe_read', { path: '/a.txt' }))).toBe('root file');
    expect((await server.call('probe_read', { path: '/secret.txt' })).isError).toBe(true);
  });

  test('--roots narrow: a root in a read-only mount gives a read-only view, not a writable one', async () => {
    const roots = [{ uri: uri(layout.ro) }];
    const server = await probe(['--root', layout.root, '--mount', `${layout.ro}:/ro:ro`, '--roots', 'narrow'], { roots });
    expect(text(await server.call('probe_read', { path: '/r.txt' }))).toBe('read-only file');
    const result = await server.call('probe_write', { path: '/r.txt', content: 'x' });
    expect([result.isError, result.structuredContent.code]).toEqual([true, 'READ_ONLY']);
    expect(fs.readFileSync(path.join(layout.ro, 'r.txt'), 'utf8')).toBe('read-only file');
  });
});

describe('approvals', () => {
  test('"ask" makes a change tool destructive, so a client confirms it; preApproved leaves it as it is', async () => {
    const project = path.join(layout.base, 'approvals');
    fs.mkdirSync(project, { recursive: true });
    const config = path.join(project, 'golem-forge.config.yaml');
    const hintsOf = async (approval) => {
      write(config, `sandbox:\n  root: ${JSON.stringify(layout.root)}\n  approval:\n    write: ${approval}\n    delete: preApproved\n`);
      const server = await start(['--config', config]);
      const { tools } = await server.listTools();
      return Object.fromEntries(tools.map((t) => [t.name, t.annotations.destructiveHint]));
    };
    const preApproved = await hintsOf('preApproved');
    expect(preApproved.create_directory).toBe(false);
    const asked = await hintsOf('ask');
    expect(asked.create_directory).toBe(true);
    expect(asked.read_text_file).toBe(false);
  });
});

describe('--config', () => {
  test('serves the program config\'s sandbox, and a worker file\'s narrower one', async () => {
    const project = path.join(layout.base, 'project');
    write(path.join(project, 'golem-forge.config.yaml'), `sandbox:\n  root: ${JSON.stringify(layout.root)}\n`);
    write(path.join(project, 'workers', 'sub.worker'), '---\nname: sub\nsandbox: {restrict: /sub, readonly: true}\n---\nprompt\n');
    const config = await probe(['--config', path.join(project, 'golem-forge.config.yaml')]);
    expect(text(await config.call('probe_read', { path: '/a.txt' }))).toBe('root file');
    const worker = await probe(['--config', path.join(project, 'golem-forge.config.yaml'), '--worker', path.join(project, 'workers', 'sub.worker')]);
    expect(text(await worker.call('probe_read', { path: '/inner.txt' }))).toBe('inner file');
    expect((await worker.listTools()).tools.map((t) => t.name)).not.toContain('probe_write');
  });

  // A command run in a sandbox could have written any file where that sandbox is writable: a
  // config there, or a worker file there, is refused as the mount-sandbox CLI refuses it.
  test('a config lying in the writable area of a config above it is refused (exit 1, UNTRUSTED)', () => {
    write(path.join(layout.base, 'golem-forge.config.yaml'), 'sandbox:\n  root: root\n');
    const planted = path.join(layout.root, 'golem-forge.config.yaml');
    write(planted, `sandbox:\n  root: ${JSON.stringify(layout.outside)}\n`);
    const result = spawnSync(process.execPath, [BIN, '--config', planted], { encoding: 'utf8', input: '' });
    expect([result.status, result.stderr]).toEqual([1, expect.stringMatching(/cannot\s+be\s+trusted/)]);
  });

  test('a worker file in the sandbox\'s writable area is refused (exit 1, UNPROTECTED_WORKER)', () => {
    const config = path.join(layout.base, 'golem-forge.config.yaml');
    write(config, 'sandbox:\n  root: root\n');
    const planted = path.join(layout.root, 'planted.worker');
    write(planted, '---\nname: planted\n---\nprompt\n');
    const result = spawnSync(process.execPath, [BIN, '--config', config, '--worker', planted], { encoding: 'utf8', input: '' });
    expect([result.status, result.stderr]).toEqual([1, expect.stringMatching(/\.worker file where the sandbox lets commands write/)]);
  });

  test('an invalid config exits 1 with the library\'s message', () => {
    const file = path.join(layout.base, 'golem-forge.config.yaml');
    write(file, 'sandbox:\n  readonly: "yes"\n');
    const result = spawnSync(process.execPath, [BIN, '--config', file], { encoding: 'utf8', input: '' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/sandbox\.readonly/);
  });
});

describe('tool definitions', () => {
  const { checkTool } = require('../mcp/lib/server');
  const tool = (annotations) => ({ name: 't', annotations, handler: async () => ({ content: [] }) });
  const full = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

  test('a tool missing one of the four hints, or giving one as a non-boolean, is refused at start', () => {
    expect(() => checkTool(tool(full))).not.toThrow();
    for (const hint of HINTS) {
      const { [hint]: _, ...missing } = full;
      expect(() => checkTool(tool(missing))).toThrow(`annotations.${hint} must be a boolean`);
      expect(() => checkTool(tool({ ...full, [hint]: 'true' }))).toThrow(`annotations.${hint} must be a boolean`);
    }
  });

  test('every shipped tool passes', () => {
    for (const t of realTools()) expect(() => checkTool(t)).not.toThrow();
  });
});
