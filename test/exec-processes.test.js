'use strict';

// sandbox.exec and the processes and descriptors around the command: what it leaves
// behind, what it inherits, timeouts, output caps and resource limits.
// Setup, layer checks and helpers shared by the exec-*.test.js files: exec-helpers.js.
const fs = require('fs');
const path = require('path');
const { execFileSync, spawn, spawnSync } = require('child_process');
const { settleWithin } = require('./helpers');
const {
  SECRET, PERL, q, sleep, launcherPolicy, launchSync, seen, run, needs, needsPerl, sizeOf,
  useExecFixture,
} = require('./exec-helpers');

let root, home, sandbox; // set before each test
useExecFixture((fixture) => ({ root, home, sandbox } = fixture));

describe('processes the command leaves behind', () => {
  // A loop that appends to a marker in the writable root for at most ~10 s; the command waits
  // until the marker exists, so the grandchild was surely running when the command ended.
  function markerLoop(marker, { setsid }) {
    const loop = `i=0; while [ $i -lt 200 ]; do echo x >> ${marker}; i=$((i+1)); sleep 0.05; done`;
    return `${setsid ? 'setsid ' : ''}sh -c '${loop}' </dev/null >/dev/null 2>&1 & ` +
      `while [ ! -s ${marker} ]; do sleep 0.02; done; echo started`;
  }

  async function expectStopsGrowing(marker) {
    await sleep(300); // a write already under way may still land
    const first = sizeOf(marker);
    expect(first).toBeGreaterThan(0);
    await sleep(700);
    expect(sizeOf(marker)).toBe(first);
  }

  needs([])('[pid-namespace / process group] a backgrounded grandchild does not outlive the command', async () => {
    const marker = path.join(root, 'marker');
    const result = await run(sandbox, ['sh', '-c', markerLoop(seen('/marker', marker), { setsid: false })]);
    expect(result.stdout).toBe('started\n');
    await expectStopsGrowing(marker);
  });

  needs('pid-namespace')('[pid-namespace] a grandchild that started its own session (setsid) does not outlive the command', async () => {
    const marker = path.join(root, 'marker');
    const result = await run(sandbox, ['sh', '-c', markerLoop(seen('/marker', marker), { setsid: true })]);
    expect(result.stdout).toBe('started\n');
    await expectStopsGrowing(marker);
  });

  needs(['pid-namespace', 'landlock-signal-scope'], { any: true })('[pid-namespace / landlock-signal-scope] a process outside the sandbox cannot be signalled (kill, pidfd via /proc)', async () => {
    const victim = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pidfd = `open(my $fh, "<", "/proc/${victim.pid}") or die "open: $!"; my $r = syscall(424, fileno($fh), 9, 0, 0); print "pidfd_send_signal=$r\\n";`;
      const perl = fs.existsSync(PERL) ? `; ${PERL} -e ${q(pidfd)}` : '';
      const result = await run(sandbox, ['sh', '-c', `kill -9 ${victim.pid}; echo "kill=$?"${perl}`]);
      expect(result.stdout).toMatch(/^kill=[1-9]/m);
      expect(result.stdout).not.toMatch(/^pidfd_send_signal=0$/m);
      await sleep(200);
      expect(victim.exitCode).toBeNull();
      expect(victim.signalCode).toBeNull();
    } finally {
      victim.kill('SIGKILL');
    }
  });
});

describe('[close_range] inherited descriptors', () => {
  test('[close_range] a descriptor open on a secret, passed to msb-launch, is closed before the command runs', () => {
    const fd = fs.openSync(path.join(home, 'secret.txt'), 'r');
    try {
      const script = 'cat <&4; cat <&5; ls /proc/self/fd';
      // Control: without the launcher, the command reads the secret through those descriptors.
      const leaked = spawnSync('sh', ['-c', script], {
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', fd, fd],
        env: { PATH: '/usr/bin:/bin' },
        encoding: 'utf8',
      });
      expect(leaked.stdout).toContain(SECRET);
      // allowWeaker: this test is about descriptors, whatever layers the kernel offers.
      const result = launchSync(launcherPolicy(['sh', '-c', script], { allowWeaker: true }), fd);
      expect(result.status).toMatch(/^ok /m);
      expect(result.stdout).not.toContain(SECRET);
      expect(result.stdout).not.toContain('"argv"'); // nor the policy
      expect(result.stderr).toMatch(/Bad file descriptor/);
      // 3 is the directory ls opened (the status channel is close-on-exec).
      expect(result.stdout.trim().split('\n').sort()).toEqual(['0', '1', '2', '3']);
    } finally {
      fs.closeSync(fd);
    }
  });

  needs([])('[close_range] a command run by sandbox.exec has only stdin, stdout and stderr open', async () => {
    const result = await run(sandbox, ['ls', '-l', '/proc/self/fd']);
    expect(result.exitCode).toBe(0);
    const fds = result.stdout.split('\n').map((line) => line.match(/ (\d+) -> (.*)$/)).filter(Boolean);
    const others = fds.filter(([, n]) => !['0', '1', '2'].includes(n));
    // Only the descriptor ls opened to list the directory.
    expect(others.length).toBeLessThanOrEqual(1);
    for (const [, , target] of others) expect(target).toMatch(/^\/proc\/\d+\/fd$/);
  });
});

describe('timeouts and output limits', () => {
  needs([])('[pid-namespace / process group] a timeout kills the whole process tree and the call returns', async () => {
    const marker = path.join(root, 'late.txt');
    const result = await settleWithin(
      run(sandbox, ['sh', '-c', `(sleep 1; echo late > ${marker}) & sleep 60 & sleep 60`], { timeoutMs: 300 }),
      10_000,
      'exec with timeoutMs 300',
    );
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(result.exitCode).toBe(-1);
    expect(result.stderr).toMatch(/timed out/);
    await sleep(1500);
    expect(fs.existsSync(marker)).toBe(false); // the backgrounded subshell was killed with it
  });

  needs([])('[output cap] stdout and stderr are each capped at maxOutputBytes and marked truncated', async () => {
    const result = await run(sandbox, [
      'sh', '-c', 'head -c 200000 /dev/zero | tr "\\000" a; head -c 200000 /dev/zero | tr "\\000" b >&2',
    ], { maxOutputBytes: 1000 });
    expect(result.exitCode).toBe(0);
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(1000);
    expect(result.stdout).toMatch(/^a+$/);
    expect(result.stdout.length).toBeGreaterThan(0);
    expect(result.stderr.length).toBeLessThanOrEqual(1000);
    expect(result.stderr).toMatch(/^b+$/);

    const small = await run(sandbox, ['sh', '-c', 'echo fits; echo also >&2'], { maxOutputBytes: 1000 });
    expect(small).toMatchObject({ stdout: 'fits\n', stderr: 'also\n', truncated: false });
  });

  needs([])('[output cap] a command that never stops writing is capped, then ends at its timeout', async () => {
    const result = await settleWithin(run(sandbox, ['yes'], { maxOutputBytes: 1000, timeoutMs: 500 }), 10_000, 'yes');
    expect(result.stdout.length).toBeLessThanOrEqual(1000);
    expect(result.truncated).toBe(true);
    expect(result.timedOut).toBe(true);
  });
});

describe('[process-limit] resource limits', () => {
  // Forks until the kernel refuses; every child sleeps, so they all count at once.
  const bomb = (max) => `my $n = 0; while ($n < ${max}) { my $p = fork; if (!defined $p) { print "stopped at $n: $!\\n"; exit 0 }
    if ($p == 0) { sleep 20; exit 0 } $n++ } print "not stopped at $n\\n"`;

  needsPerl('process-limit')('[process-limit] a fork bomb stops at the process limit, default and given', async () => {
    const result = await run(sandbox, [PERL, '-e', bomb(2000)], { timeoutMs: 60_000 });
    expect(result.stdout).toMatch(/^stopped at \d+: Resource temporarily unavailable\n$/);
    expect(Number(result.stdout.match(/\d+/)[0])).toBeLessThan(512);
    expect(result.enforcement.limits.processes).toBe(512);
    const given = await run(sandbox, [PERL, '-e', bomb(2000)], { limits: { processes: 300 }, timeoutMs: 60_000 });
    expect(Number(given.stdout.match(/\d+/)[0])).toBeLessThan(300);
    // The host is fine: it still starts processes.
    expect(execFileSync('sh', ['-c', 'echo alive'], { encoding: 'utf8' })).toBe('alive\n');
  });

  needsPerl('seccomp')('[limits] memoryBytes and cpuSeconds bound each process', async () => {
    const memory = await run(sandbox, [PERL, '-e', 'my $x = "a" x (512 * 1024 * 1024); print "allocated\\n"'], { limits: { memoryBytes: 64 * 1024 * 1024 } });
    expect(memory.stdout).not.toContain('allocated');
    expect(memory.enforcement.layers).toContain('memory-limit');
    expect(memory.enforcement.limits.memoryBytes).toBe(64 * 1024 * 1024);
    const cpu = await run(sandbox, [PERL, '-e', '1 while 1'], { limits: { cpuSeconds: 1 }, timeoutMs: 20_000 });
    expect(cpu.timedOut).toBe(false);
    expect(cpu.signal).toMatch(/^SIG(XCPU|KILL)$/);
    for (const limits of [{ processes: 10 }, { processes: 1.5 }, { memoryBytes: 0 }, { cpuSeconds: -1 }, { bogus: 1 }, 'x']) {
      const err = await run(sandbox, ['true'], { limits }).catch((e) => e);
      expect(err).toBeInstanceOf(Error);
      expect(['TypeError', 'RangeError']).toContain(err.constructor.name);
    }
  });
});
