'use strict';

// mount-sandbox-mcp's exec and grep_files tools, through the real server started as a process and
// driven by the MCP SDK's client over stdio. exec's attacks are commands an agent could send: read
// a secret beside the sandbox, write outside it, outlive a cancelled request; grep_files' are
// searches that would read or return without bound, follow a symlink out, or hang the server.
const fs = require('fs');
const path = require('path');
const { makeTempLayout, removeDir, snapshotTree, testNeeding, write } = require('./helpers');
const { needs, sleep } = require('./exec-helpers');
const { startServer } = require('./helpers/mcp-client');

const SECRET = 'MCP-EXEC-SECRET-CONTENT';
jest.setTimeout(60_000);

let layout; // { base, root, ro, outside }
let server;
let outsideBefore;

beforeEach(() => {
  layout = makeTempLayout(['root', 'ro', 'outside'], 'msb-mcp-exec-');
  write(path.join(layout.root, 'src', 'app.js'), 'const greeting = "hello";\nconsole.log(greeting);\n');
  write(path.join(layout.ro, 'fixed.txt'), 'read-only content\n');
  write(path.join(layout.outside, 'secret.txt'), SECRET);
  fs.symlinkSync(path.join(layout.outside, 'secret.txt'), path.join(layout.root, 'link-out.txt'));
  outsideBefore = [snapshotTree(layout.outside), snapshotTree(layout.ro)];
});

afterEach(async () => {
  if (server) await server.close();
  server = null;
  try {
    expect([snapshotTree(layout.outside), snapshotTree(layout.ro)]).toEqual(outsideBefore);
  } finally {
    removeDir(layout.base);
  }
});

async function start(extra = []) {
  server = await startServer(['--root', layout.root, '--mount', `${layout.ro}:/ro:ro`, ...extra]);
  return server.client;
}

// Every reply's text and structured content, checked for host paths (the layout's base names the
// root, the read-only mount and the outside directory alike).
// `given` is a host path the command itself named: the shell's error echoing it back is no leak.
function replyText(result, given = null) {
  const text = given === null ? JSON.stringify(result) : JSON.stringify(result).split(given).join('<given>');
  expect(text).not.toContain(layout.base);
  expect(text).not.toContain(fs.realpathSync(layout.base));
  return result.content.map((c) => c.text).join('\n');
}

async function exec(client, args, options, given = null) {
  const result = await client.callTool({ name: 'exec', arguments: args }, options);
  return { result, text: replyText(result, given) };
}

// Host processes whose argv holds `marker` (a unique sleep duration): the command's own, seen from
// outside its PID namespace.
function processesWith(marker) {
  return fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker);
    } catch {
      return false;
    }
  });
}

async function waitFor(predicate, ms, what) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

describe('exec', () => {
  needs('private-root')('is listed with its hints (no network by default) and a description that says how paths map', async () => {
    const client = await start();
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'exec');
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    expect(tool.description).toMatch(/\/x is \/workspace\/x/);
    expect(tool.description).toMatch(/no network/);
    expect(JSON.stringify(tools)).not.toContain(layout.base);
  });

  // The hint follows the server's network setting only once server.js registers the definitions
  // tools/exec.js makes for the sandbox (forSandbox); until then this says so and is skipped.
  const perSandbox = fs.readFileSync(path.join(__dirname, '..', 'mcp', 'lib', 'server.js'), 'utf8').includes('forSandbox')
    ? null
    : 'mcp/lib/server.js registers the static exec definitions (network off), not forSandbox(sandbox)';
  testNeeding(perSandbox)('openWorldHint and the description follow --network and --allow', async () => {
    for (const [args, open, said] of [
      [[], false, /no network/],
      [['--network'], true, /the host's network/],
      [['--allow', 'registry.pkgs.example:443'], true, /only these destinations, by name, through a proxy: registry\.pkgs\.example:443/],
    ]) {
      const client = await start(args);
      const tool = (await client.listTools()).tools.find((t) => t.name === 'exec');
      expect(tool.annotations.openWorldHint).toBe(open);
      expect(tool.description).toMatch(said);
      await server.close();
      server = null;
    }
  });

  needs('private-root')('[confinement] cat of a secret beside the sandbox fails by its host path, by .., and through a symlink out', async () => {
    const client = await start();
    const secret = path.join(layout.outside, 'secret.txt');
    for (const command of [`cat ${secret}`, 'cat ../outside/secret.txt', 'cat /workspace/../outside/secret.txt', 'cat link-out.txt']) {
      const { result, text } = await exec(client, { command }, undefined, secret);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent.exitCode).not.toBe(0);
      expect(text).not.toContain(SECRET);
    }
  });

  needs('private-root')('[confinement] writes outside the sandbox and into a read-only mount fail; writes in it land at /workspace', async () => {
    const client = await start();
    const outsideFile = path.join(layout.outside, 'made.txt');
    for (const command of [`echo x > ${outsideFile}`, 'echo x > ../outside/made.txt', 'echo x > /workspace/ro/fixed.txt', 'rm /workspace/ro/fixed.txt']) {
      const { result } = await exec(client, { command }, undefined, outsideFile);
      expect(result.structuredContent.exitCode).not.toBe(0);
    }
    expect(fs.existsSync(outsideFile)).toBe(false);

    const { text, result } = await exec(client, { command: 'pwd; ls; echo made > new.txt; cat /workspace/ro/fixed.txt', cwd: '/src' });
    expect(result.structuredContent).toMatchObject({ exitCode: 0, signal: null, timedOut: false, truncated: false, network: 'off' });
    expect(text).toMatch(/^exit code: 0\nstdout:\n\/workspace\/src\napp\.js\nread-only content\n/);
    expect(fs.readFileSync(path.join(layout.root, 'src', 'new.txt'), 'utf8')).toBe('made\n');
  });

  needs('private-root')('[hard links] links placed before the run into the read-only mount and outside are not written through', async () => {
    fs.linkSync(path.join(layout.outside, 'secret.txt'), path.join(layout.root, 'secret-link.txt'));
    fs.linkSync(path.join(layout.ro, 'fixed.txt'), path.join(layout.root, 'src', 'fixed-link.txt'));
    const client = await start();
    const secret = fs.readFileSync(path.join(layout.outside, 'secret.txt'), 'utf8');
    const fixed = fs.readFileSync(path.join(layout.ro, 'fixed.txt'), 'utf8');
    const { result } = await exec(client, { command: 'echo pwned > secret-link.txt; echo pwned > src/fixed-link.txt' });
    // The writes went to the command's layer; what lands replaces the names inside, never the
    // inodes they shared with the files outside and in the read-only mount.
    expect(result.structuredContent.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(layout.outside, 'secret.txt'), 'utf8')).toBe(secret);
    expect(fs.readFileSync(path.join(layout.ro, 'fixed.txt'), 'utf8')).toBe(fixed);
    expect(result.structuredContent.changes).toEqual({ applied: 2, refused: 0, conflicts: 0, pending: 0 });
    await client.ping();
    fs.rmSync(path.join(layout.root, 'secret-link.txt'));
    fs.rmSync(path.join(layout.root, 'src', 'fixed-link.txt'));
  });

  needs('private-root')('[output cap] output past the server\'s cap is cut and the reply says so', async () => {
    const client = await start();
    const { result, text } = await exec(client, { command: 'head -c 500000 /dev/zero | tr "\\000" a; head -c 500000 /dev/zero | tr "\\000" b >&2' });
    expect(result.structuredContent).toMatchObject({ exitCode: 0, truncated: true });
    expect(text.length).toBeLessThan(2 * 64 * 1024 + 1000);
    expect(text).toMatch(/\[truncated: stdout and stderr each keep their first \d+ bytes/);
    expect(text).toMatch(/a{1000}/);
    expect(text).toMatch(/b{1000}/);
  });

  needs('private-root')('a timeout kills the command and the reply says so', async () => {
    const client = await start();
    const { result, text } = await exec(client, { command: 'sleep 30', timeoutMs: 300 });
    expect(result.structuredContent).toMatchObject({ exitCode: -1, signal: 'SIGKILL', timedOut: true });
    expect(text).toMatch(/killed by SIGKILL at the timeout/);
  });

  needs('private-root')('[cancellation] a cancelled request kills the whole process group: no process stays, no later write lands', async () => {
    const client = await start();
    const duration = `${700 + Math.floor(Math.random() * 200)}.${process.pid}`;
    const late = path.join(layout.root, 'late.txt');
    const command = `(sleep 1; echo late > /workspace/late.txt) & sleep ${duration} & setsid sleep ${duration} & ` +
      `sleep ${duration}`;
    const controller = new AbortController();
    const call = client.callTool({ name: 'exec', arguments: { command, timeoutMs: 120_000 } }, { signal: controller.signal, timeout: 120_000 });
    const settled = call.then(() => 'resolved', (error) => error);
    await waitFor(() => processesWith(duration).length === 3, 10_000, 'its three sleeps');
    controller.abort();
    const outcome = await settled;
    expect(outcome).toBeInstanceOf(Error); // the SDK rejects the cancelled request at once
    await waitFor(() => processesWith(duration).length === 0, 5_000, 'the command\'s processes to be gone');
    await sleep(1500);
    expect(fs.existsSync(late)).toBe(false);
    // The server goes on serving.
    const { text } = await exec(client, { command: 'echo still here' });
    expect(text).toMatch(/still here/);
  });

  needs('private-root')('[progress] a request with a progress token gets progress while the command runs; one without gets none', async () => {
    const client = await start();
    const seen = [];
    const { text } = await exec(client, { command: 'sleep 2.5; echo done' }, { onprogress: (p) => seen.push(p) });
    expect(text).toMatch(/done/);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toMatchObject({ progress: 1, total: 30 });
    expect(seen[0].message).toMatch(/running for 1 s/);
    expect(seen[1].progress).toBeGreaterThan(seen[0].progress);
  });

  needs('private-root')('a bad cwd is a tool error naming the virtual path only', async () => {
    const client = await start();
    const { result, text } = await exec(client, { command: 'pwd', cwd: '/../outside' });
    expect(result.isError).toBe(true);
    expect(text).not.toContain(SECRET);
    const missing = await exec(client, { command: 'pwd', cwd: '/nowhere' });
    expect(missing.result.isError).toBe(true);
    expect(missing.text).toMatch(/\/nowhere/);
  });
});

describe('grep_files', () => {
  async function grep(client, args) {
    const result = await client.callTool({ name: 'grep_files', arguments: args });
    return { result, text: replyText(result) };
  }

  test('finds matches with context, in grep\'s format, and is listed read-only', async () => {
    const client = await start();
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'grep_files').annotations)
      .toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    const { result, text } = await grep(client, { path: '/src', pattern: 'greet\\w+', contextLines: 1 });
    expect(text).toBe([
      '/src/app.js:1: const greeting = "hello";',
      '/src/app.js-2- console.log(greeting);',
      '--',
      '/src/app.js-1- const greeting = "hello";',
      '/src/app.js:2: console.log(greeting);',
      '--',
    ].join('\n'));
    expect(result.structuredContent).toMatchObject({ truncated: false, matches: [{ path: '/src/app.js', line: 1 }, { path: '/src/app.js', line: 2 }] });
    const literal = await grep(client, { path: '/src', pattern: 'log(', literal: true });
    expect(literal.text).toBe('/src/app.js:2: console.log(greeting);');
    const ro = await grep(client, { path: '/ro', pattern: 'READ-ONLY', ignoreCase: true });
    expect(ro.text).toBe('/ro/fixed.txt:1: read-only content');
  });

  test('exclude passes globs over; gitignore: false searches what the ignore files leave out', async () => {
    write(path.join(layout.root, 'src', 'vendor', 'lib.js'), 'const greeting = "vendored";\n');
    write(path.join(layout.root, 'src', 'app.min.js'), 'const greeting = "min";\n');
    write(path.join(layout.root, 'src', 'ignored.js'), 'const greeting = "ignored";\n');
    write(path.join(layout.root, '.ignore'), 'ignored.js\n');
    const client = await start();
    const files = async (args) => [...new Set((await grep(client, { path: '/src', pattern: 'greeting =', ...args })).result.structuredContent.matches.map((m) => m.path))];
    expect(await files({})).toEqual(['/src/app.js', '/src/app.min.js', '/src/vendor/lib.js']);
    expect(await files({ exclude: ['vendor', '/*.min.js'] })).toEqual(['/src/app.js']);
    expect(await files({ gitignore: false })).toEqual(['/src/app.js', '/src/app.min.js', '/src/ignored.js', '/src/vendor/lib.js']);
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'grep_files').inputSchema.properties;
    expect(schema.exclude.type).toBe('array');
    expect(schema.gitignore.type).toBe('boolean');
  });

  test('the ripgrep options: files and counts as output, word, invert, type, before and after', async () => {
    write(path.join(layout.root, 'src', 'notes.md'), 'greeting\ngreetings\nplain\n');
    const client = await start();
    const files = await grep(client, { path: '/src', pattern: 'greet', output: 'files' });
    expect(files.text).toBe('/src/app.js\n/src/notes.md');
    expect(files.result.structuredContent.files).toEqual([{ path: '/src/app.js' }, { path: '/src/notes.md' }]);
    expect((await grep(client, { path: '/src', pattern: 'greet', output: 'count' })).text).toBe('/src/app.js:2\n/src/notes.md:2');
    expect((await grep(client, { path: '/src', pattern: 'greeting', word: true, type: 'md' })).text).toBe('/src/notes.md:1: greeting');
    expect((await grep(client, { path: '/src/notes.md', pattern: 'greet', invert: true })).text).toBe('/src/notes.md:3: plain');
    const before = await grep(client, { path: '/src/notes.md', pattern: 'plain', before: 1, after: 0 });
    expect(before.text).toBe('/src/notes.md-2- greetings\n/src/notes.md:3: plain\n--');
    const refused = await grep(client, { path: '/src', pattern: 'x', type: 'typescript' });
    expect(refused.result.isError).toBe(true);
    expect(refused.text).toMatch(/among: .*\bts\b/);
    const capped = await grep(client, { path: '/src', pattern: 'greet', output: 'files', maxResults: 1 });
    expect(capped.text).toMatch(/^\/src\/app\.js\n\[truncated: it stopped at 1 file \(maxResults\)\]$/);
  });

  test('[symlink out] a link to a secret outside is not followed: the secret never appears', async () => {
    const client = await start();
    const { result, text } = await grep(client, { path: '/', pattern: SECRET, include: '*.txt' });
    expect(result.isError).toBeFalsy();
    expect(text).not.toContain(SECRET);
    expect(text).toMatch(/^No matches in \d+ files?\.$/); // as ripgrep, the walk follows no link
    const direct = await grep(client, { path: '/link-out.txt', pattern: SECRET });
    expect(direct.text).not.toContain(SECRET);
    const escape = await grep(client, { path: '/../outside', pattern: SECRET });
    expect(escape.result.isError).toBe(true);
    expect(escape.text).not.toContain(SECRET);
  });

  test('[bounds] maxResults, huge lines and binary files: the reply is bounded and says it was truncated', async () => {
    for (let i = 0; i < 30; i++) write(path.join(layout.root, 'many', `f${String(i).padStart(2, '0')}.txt`), 'needle\n'.repeat(50));
    write(path.join(layout.root, 'many', 'long.txt'), `needle${'x'.repeat(100_000)}\n`);
    fs.writeFileSync(path.join(layout.root, 'many', 'bin.dat'), Buffer.concat([Buffer.from('needle\n'), Buffer.alloc(10), Buffer.from('needle\n')]));
    const client = await start();
    const capped = await grep(client, { path: '/many', pattern: 'needle', maxResults: 7 });
    expect(capped.result.structuredContent.matches).toHaveLength(7);
    expect(capped.result.structuredContent.truncated).toBe(true);
    expect(capped.text).toMatch(/\[truncated: it stopped at 7 matches \(maxResults\)\]$/);

    const all = await grep(client, { path: '/many', pattern: 'needle', maxResults: 1000, include: '{bin.dat,long.txt}' });
    expect(all.text).toMatch(/^\/many\/long\.txt:1: needlex{394} \[line cut\]$/m);
    expect(all.text).toMatch(/1 file not searched past binary data \(a NUL byte\)/);
    expect(all.text).not.toMatch(/bin\.dat:/);

    const reply = await grep(client, { path: '/many', pattern: 'needle', maxResults: 1000 });
    expect(reply.result.structuredContent.truncated).toBe(true);
    expect(reply.text.length).toBeLessThan(70 * 1024);
    expect(reply.text).toMatch(/\[truncated: (it stopped at 1000 matches|\d+ more matches not shown)/);
  });

  test('[catastrophic pattern] a pattern that backtracks elsewhere runs in linear time, and the server keeps answering', async () => {
    write(path.join(layout.root, 'evil.txt'), `${'a'.repeat(100_000)}!\n`);
    const client = await start();
    const started = Date.now();
    const { result, text } = await grep(client, { path: '/', pattern: '^(a+)+$', include: 'evil.txt' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.isError).toBeFalsy();
    expect(text).toBe('No matches in 1 file.');
    const after = await grep(client, { path: '/src', pattern: 'hello' });
    expect(after.text).toMatch(/app\.js:1:/);
  });

  test('a directory whose name has glob characters is searched as named, and only it', async () => {
    write(path.join(layout.root, 'a[1]', 'in.txt'), 'found\n');
    write(path.join(layout.root, 'a1', 'other.txt'), 'found\n');
    const client = await start();
    const { text } = await grep(client, { path: '/a[1]', pattern: 'found' });
    expect(text).toBe('/a[1]/in.txt:1: found');
  });

  test('bad input is a tool error: an invalid regular expression, a missing directory (a wildcard in path is a name)', async () => {
    const client = await start();
    const bad = await grep(client, { path: '/', pattern: '(' });
    expect(bad.result).toMatchObject({ isError: true, structuredContent: { code: 'INVALID_PATTERN' } });
    expect(bad.text).toMatch(/literal: true/);
    const wild = await grep(client, { path: '/src/*', pattern: 'x' }); // a name, not a pattern
    expect(wild.result).toMatchObject({ isError: true, structuredContent: { code: 'NOT_FOUND' } });
    const missing = await grep(client, { path: '/nowhere', pattern: 'x' });
    expect(missing.result).toMatchObject({ isError: true, structuredContent: { code: 'NOT_FOUND' } });
  });

  // In-process: the SDK client gives up on a cancelled request at once, so whether the search
  // stopped is seen on the handler's own promise.
  test('[cancellation] the search stops once the request\'s signal aborts, and rejects with its reason', async () => {
    for (let i = 0; i < 2000; i++) write(path.join(layout.root, 'c', `f${String(i).padStart(4, '0')}.txt`), 'x\n'.repeat(100));
    const { createMountSandbox } = require('../lib');
    const { grepFiles } = require('../mcp/lib/tools/grep');
    const sandbox = createMountSandbox({ root: layout.root });
    const before = new AbortController();
    before.abort();
    await expect(grepFiles(sandbox, { path: '/c', pattern: 'x' }, { signal: before.signal })).rejects.toMatchObject({ name: 'AbortError' });
    const during = new AbortController();
    const search = grepFiles(sandbox, { path: '/c', pattern: 'x', maxResults: 1000 }, { signal: during.signal });
    setImmediate(() => during.abort());
    await expect(search).rejects.toMatchObject({ name: 'AbortError' });
  });
});
