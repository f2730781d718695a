'use strict';

// A command's /tmp (issue 39): a tmpfs of limits.tmpBytes (1 GiB by default), so that writing
// there cannot fill the host's disk. The attack writes 2.4 GiB into /tmp while the host's free
// space is sampled: before, the host lost 2.4 GiB for as long as the command ran.
const fs = require('fs');
const os = require('os');
const { run, needs, useExecFixture } = require('./exec-helpers');

let sandbox; // set before each test
useExecFixture((fixture) => ({ sandbox } = fixture));

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
    expect(result.stderr).toContain('Note: a write ran out of space. This command\'s /tmp (its HOME too) holds at most 8 MiB (limits.tmpBytes)');
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
});
