'use strict';

// A command's /tmp (issue 39): a tmpfs of limits.tmpBytes (1 GiB by default), so that writing
// there cannot fill the host's disk. The attack writes 2.4 GiB into /tmp while the host's free
// space is sampled: before, the host lost 2.4 GiB for as long as the command ran.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { createMountSandbox, createSandboxFromConfig, findProgramConfig, SandboxConfigError } = require('..');
const { run, needs, useExecFixture } = require('./exec-helpers');
const { startServer } = require('./helpers/mcp-client');

let sandbox; // set before each test
let root;
useExecFixture((fixture) => ({ sandbox, root } = fixture));

const MiB = 2 ** 20;

function freeBytes() {
  const s = fs.statfsSync(os.tmpdir());
  return s.bavail * s.bsize;
}

describe('the command\'s /tmp', () => {
  needs('mount-namespace')('[mount-namespace] 2.4 GiB into /tmp: the host\'s disk keeps its free space; the command gets ENOSPC at 1 GiB, and a note says what filled up', async () => {
    const before = freeBytes();
    let least = before;
    const sampler = setInterval(() => (least = Math.min(least, freeBytes())), 50);
    let result;
    try {
      result = await run(sandbox, ['sh', '-c', 'head -c 2400M /dev/zero > /tmp/big; echo "exit $?"; sleep 1'], { timeoutMs: 120_000 });
    } finally {
      clearInterval(sampler);
    }
    expect(result.stdout).toBe('exit 1\n');
    expect(result.stderr).toMatch(/No space left on device/);
    expect(result.enforcement.layers).toContain('tmp-limit');
    expect(result.enforcement.limits.tmpBytes).toBe(2 ** 30);
    // Other processes write too: allow them 200 MiB, far from the 2.4 GiB the command wrote.
    expect(before - least).toBeLessThan(200 * MiB);
  }, 180_000);

  needs('mount-namespace')('[mount-namespace] limits.tmpBytes sets the size; the note names it when a failed command ran out of space', async () => {
    const result = await run(sandbox, ['sh', '-c', 'head -c 20M /dev/zero > /tmp/big'], { limits: { tmpBytes: 8 * MiB } });
    expect(result.exitCode).toBe(1);
    expect(result.enforcement.limits.tmpBytes).toBe(8 * MiB);
    expect(result.stderr).toContain('Note: a write ran out of space. This command\'s /tmp (its HOME too) holds at most 8 MiB (limits.tmpBytes, or tmpBytes in the config)');
    const smaller = await run(sandbox, ['true'], { limits: { tmpBytes: 8 * MiB, memoryBytes: 4 * MiB } });
    expect(smaller.enforcement.limits.tmpBytes).toBe(4 * MiB);
  });

  needs('mount-namespace')('[mount-namespace] limits.tmpBytes 0 leaves /tmp on the host\'s disk, and says so', async () => {
    const result = await run(sandbox, ['sh', '-c', 'echo ok > /tmp/x && cat /tmp/x'], { limits: { tmpBytes: 0 } });
    expect(result.stdout).toBe('ok\n');
    expect(result.enforcement.layers).not.toContain('tmp-limit');
    expect(result.enforcement.limits.tmpBytes).toBeNull();
  });

  test('a tmpBytes that is not a byte count is refused before anything runs', async () => {
    for (const tmpBytes of [-1, 1.5, '1G', Number.MAX_SAFE_INTEGER + 2]) {
      await expect(sandbox.exec(['true'], { limits: { tmpBytes } })).rejects.toThrow(/limits\.tmpBytes/);
    }
  });

  test('a tmpBytes that is not a byte count is a config error, in a file and in createMountSandbox', async () => {
    for (const tmpBytes of [-1, 1.5, '1G']) expect(() => createMountSandbox({ root, tmpBytes })).toThrow(SandboxConfigError);
    fs.writeFileSync(path.join(root, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n  tmpBytes: 1G\n');
    await expect(findProgramConfig(root)).rejects.toThrow(/sandbox\.tmpBytes: expected a size in bytes \(0 for the host's disk, unbounded\)/);
  });
});

// The copy-on-write layers a command writes its changes into (changes: 'apply' or 'review', the
// default where overlayfs works) share /tmp's size: before, they were directories on the host's
// disk, unbounded, and 2.4 GiB written into the workspace took 2.4 GiB of it while the command ran.
describe('the command\'s pending changes share /tmp\'s size', () => {
  const layered = needs(['mount-namespace', 'copy-on-write']);
  const stageBase = () => {
    const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
    return fs.existsSync(path.join(cache, 'mount-sandbox')) ? path.join(cache, 'mount-sandbox') : os.tmpdir();
  };
  const freeAt = (dir) => {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  };

  layered('[copy-on-write] 2.4 GiB into the workspace: the host\'s disk keeps its free space; the command gets ENOSPC at 1 GiB', async () => {
    const dirs = [os.tmpdir(), stageBase()];
    const before = dirs.map(freeAt);
    const least = [...before];
    const sampler = setInterval(() => dirs.forEach((d, i) => (least[i] = Math.min(least[i], freeAt(d)))), 50);
    let result;
    try {
      result = await run(sandbox, ['sh', '-c', 'head -c 2400M /dev/zero > /workspace/big; echo "exit $?"; stat -c %s /workspace/big; rm -f /workspace/big; exit 1'],
        { timeoutMs: 120_000 });
    } finally {
      clearInterval(sampler);
    }
    expect(result.enforcement.changes).toBe('apply');
    expect(result.enforcement.layers).toEqual(expect.arrayContaining(['copy-on-write', 'copy-on-write-limit', 'tmp-limit']));
    expect(result.stdout).toMatch(/^exit 1\n/);
    // What the layer held when the write failed: about 1 GiB (overlayfs's own few entries aside).
    const size = Number(result.stdout.split('\n')[1]);
    expect(size).toBeGreaterThan(2 ** 30 - 4 * MiB);
    expect(size).toBeLessThanOrEqual(2 ** 30);
    expect(result.stderr).toMatch(/No space left on device/);
    expect(result.stderr).toContain('/tmp and the command\'s pending changes (what it wrote outside /tmp, not yet landed) share that size');
    dirs.forEach((d, i) => expect(before[i] - least[i]).toBeLessThan(200 * MiB));
    expect(fs.existsSync(path.join(root, 'big'))).toBe(false);
  }, 180_000);

  layered('[copy-on-write] /tmp and the layer share one size: 5 MiB in /tmp leave less than 5 MiB of 8 for the workspace', async () => {
    const script = 'head -c 5M /dev/zero > /tmp/a && echo tmp-ok; head -c 5M /dev/zero > /workspace/b && echo layer-ok';
    const result = await run(sandbox, ['sh', '-c', script], { limits: { tmpBytes: 8 * MiB } });
    expect(result.stdout).toBe('tmp-ok\n');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/No space left on device/);
    expect(result.stderr).toContain('holds at most 8 MiB');
    // Each alone fits: the size is shared, not split.
    const alone = await run(sandbox, ['sh', '-c', 'head -c 5M /dev/zero > /workspace/b && echo layer-ok'], { limits: { tmpBytes: 8 * MiB } });
    expect(alone.stdout).toBe('layer-ok\n');
    expect(fs.statSync(path.join(root, 'b')).size).toBe(5 * MiB);
  });

  layered('[copy-on-write] a change set held for review stays readable until apply() lands it, then is released', async () => {
    const result = await run(sandbox, ['sh', '-c', 'echo changed > /workspace/inside.txt && echo new > /workspace/n.txt && head -c 3M /dev/zero > /tmp/junk'],
      { changes: 'review', limits: { tmpBytes: 8 * MiB } });
    expect(result.exitCode).toBe(0);
    expect(result.enforcement.layers).toContain('copy-on-write-limit');
    expect(result.changes.pending.map((c) => c.path).sort()).toEqual(['/inside.txt', '/n.txt']);
    expect(await result.changes.diff('/inside.txt')).toContain('+changed');
    expect(fs.readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('inside');
    const landed = await result.changes.apply();
    expect(landed.applied.map((c) => c.path).sort()).toEqual(['/inside.txt', '/n.txt']);
    expect(fs.readFileSync(path.join(root, 'inside.txt'), 'utf8')).toBe('changed\n');
    expect(fs.readFileSync(path.join(root, 'n.txt'), 'utf8')).toBe('new\n');
    await expect(result.changes.diff('/n.txt')).rejects.toThrow(/nothing of this change set is held/);
  });

  layered('[copy-on-write] limits.tmpBytes 0 keeps the layers on the host\'s disk, as before', async () => {
    const result = await run(sandbox, ['sh', '-c', 'head -c 20M /dev/zero > /workspace/big && echo ok'], { limits: { tmpBytes: 0 } });
    expect(result.stdout).toBe('ok\n');
    expect(result.enforcement.layers).not.toContain('copy-on-write-limit');
    expect(fs.statSync(path.join(root, 'big')).size).toBe(20 * MiB);
  });
});

// Where the size comes from when a call names none: the sandbox's config (a file's
// sandbox.tmpBytes or createMountSandbox's), kept by its views; the CLI's and the MCP server's
// --tmp-bytes. Each is seen by what the command meets: a write past the size fails.
describe('the /tmp size, from each door', () => {
  const fill = ['sh', '-c', 'head -c 12M /dev/zero > /tmp/big && echo wrote'];

  needs('mount-namespace')('[mount-namespace] a program config\'s sandbox.tmpBytes, kept by a narrowed view; a call\'s own limit wins', async () => {
    fs.writeFileSync(path.join(root, 'golem-forge.config.yaml'), `sandbox:\n  root: .\n  tmpBytes: ${8 * MiB}\n`);
    const fromFile = await createSandboxFromConfig(await findProgramConfig(root));
    const narrowed = fromFile.restrict({ readonly: true });
    for (const sb of [fromFile, narrowed]) {
      const result = await run(sb, fill);
      expect(result.enforcement.limits.tmpBytes).toBe(8 * MiB);
      expect(result.stderr).toMatch(/No space left on device/);
    }
    const wider = await run(fromFile, fill, { limits: { tmpBytes: 32 * MiB } });
    expect(wider.stdout).toBe('wrote\n');
  });

  needs('mount-namespace')('[mount-namespace] createMountSandbox({ tmpBytes })', async () => {
    const result = await run(createMountSandbox({ root, tmpBytes: 8 * MiB }), fill);
    expect(result.enforcement.limits.tmpBytes).toBe(8 * MiB);
    expect(result.exitCode).toBe(1);
  });

  needs('mount-namespace')('[mount-namespace] the CLI\'s exec --tmp-bytes', () => {
    fs.writeFileSync(path.join(root, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    const bin = path.join(__dirname, '..', 'bin', 'mount-sandbox.js');
    const cli = (args) => spawnSync(process.execPath, [bin, 'exec', ...args, '--json', '--', ...fill], { cwd: root, encoding: 'utf8' });
    const small = JSON.parse(cli(['--tmp-bytes', String(8 * MiB)]).stdout);
    expect(small.enforcement.limits.tmpBytes).toBe(8 * MiB);
    expect(small.exitCode).toBe(1);
    expect(JSON.parse(cli([]).stdout).stdout).toBe('wrote\n');
    const bad = spawnSync(process.execPath, [bin, 'exec', '--tmp-bytes', '1G', '--', 'true'], { cwd: root, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--tmp-bytes needs a whole number of bytes');
  });

  needs('mount-namespace')('[mount-namespace] the MCP server\'s --tmp-bytes', async () => {
    const server = await startServer(['--root', root, '--tmp-bytes', String(8 * MiB)]);
    try {
      const reply = await server.client.callTool({ name: 'exec', arguments: { command: fill[2] } });
      const text = reply.content.map((c) => c.text).join('\n');
      expect(text).toMatch(/No space left on device/);
      expect(text).toContain('holds at most 8 MiB');
    } finally {
      await server.close();
    }
  });
});
