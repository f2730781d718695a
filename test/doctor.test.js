'use strict';

// mount-sandbox doctor: what this machine allows exec, checked here with each layer really taken
// away where the test can do it: user namespaces by user.max_user_namespaces = 0 in a user
// namespace of the test's own, Landlock by a seccomp filter that answers ENOSYS to its first call
// (test/fixtures/no-landlock.py), the memory cgroup by running as nobody; AppArmor's restriction
// from a stand-in sysctl, as in test/apparmor.test.js. isSupported() must say what doctor says:
// both ask the launcher.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { testNeeding } = require('./helpers');
const ms = require('..');

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'mount-sandbox.js');
const IS_ROOT = process.geteuid() === 0;

jest.setTimeout(60000);

const has = (tool) => spawnSync(tool, ['--version'], { encoding: 'utf8' }).status === 0;

// `argv` before node (unshare, setpriv, the fixture), then node running `script` with `args`.
function runUnder(prefix, args, env = {}) {
  const argv = [...prefix, process.execPath, ...args];
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 45000, cwd: '/', env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const doctor = (prefix = [], extra = []) => runUnder(prefix, [BIN, 'doctor', ...extra]);

function doctorJson(prefix = [], env = {}) {
  const r = runUnder(prefix, [BIN, 'doctor', '--json'], env);
  if (r.stdout === '') throw new Error(`doctor printed nothing: ${r.stderr}`);
  return { code: r.code, report: JSON.parse(r.stdout) };
}

// isSupported().exec as a process under `prefix` sees it.
function support(prefix) {
  const r = runUnder(prefix, ['-p', `JSON.stringify(require(${JSON.stringify(ROOT)}).isSupported().exec)`]);
  return JSON.parse(r.stdout);
}

const byId = (report) => Object.fromEntries(report.checks.map((c) => [c.id, c]));

// As found unconstrained: the other tests take away only what is there to take.
const HERE = ms.isSupported().supported ? doctorJson().report : null;
const here = (id) => HERE !== null && byId(HERE)[id].available === true;

// user.max_user_namespaces = 0 in a user namespace of the test's own: its processes (root in it)
// can create none, as where the host sets it.
const NO_USERNS = ['unshare', '--user', '--map-root-user', 'sh', '-c', 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', 'sh'];
const withUnshare = testNeeding(here('user-namespaces') && has('unshare') ? null : 'no user namespaces here to take away (or no unshare)');
const withPython = testNeeding(here('landlock') && has('python3') ? null : 'no Landlock here to take away (or no python3)');
const withSetpriv = testNeeding(IS_ROOT && here('memory-cgroup') && has('setpriv')
  ? null : 'a memory cgroup is taken away by running as nobody, which needs root, setpriv and a cgroup to begin with');

describe('mount-sandbox doctor', () => {
  testNeeding(HERE === null ? 'the addon does not load here' : null)('reports each layer, with what it enables and is lost without it', () => {
    const { code, report } = doctorJson();
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.id)).toEqual([
      'user-namespaces', 'apparmor', 'landlock', 'seccomp', 'memory-cgroup', 'copy-on-write', 'network-judge',
    ]);
    for (const c of report.checks) {
      expect([true, false, null]).toContain(c.available);
      expect(c.enables.length).toBeGreaterThan(20);
      expect(c.without.length).toBeGreaterThan(20);
      // What turns it on is said only where it is missing.
      if (c.available === false) expect(c.turnOn).toEqual({ commands: expect.any(Array), note: expect.any(String) });
      else expect(c.turnOn).toBeNull();
    }
    expect(report.exec).toEqual(ms.isSupported().exec);
    expect(code).toBe(report.exec.supported ? 0 : 1);
    if (here('landlock')) expect(byId(report).landlock.state).toBe(`ABI ${report.landlockAbi}`);
    const text = doctor();
    expect(text.code).toBe(code);
    expect(text.stdout).toMatch(/^(yes|no ) {2}Landlock/m);
    expect(text.stdout).toContain('enables: ');
  });

  test('has help, takes no arguments, and is listed in the usage', () => {
    const help = runUnder([], [BIN, 'doctor', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: mount-sandbox doctor \[--json\]$/m);
    expect(doctor([], ['extra']).code).toBe(2);
    expect(doctor([], ['--config', '.']).code).toBe(2);
    expect(runUnder([], [BIN, '--help']).stdout).toContain('mount-sandbox doctor');
  });
});

describe('with a layer taken away, doctor says so, with what turns it on, and isSupported() agrees', () => {
  withUnshare('user namespaces (user.max_user_namespaces = 0)', () => {
    const { code, report } = doctorJson(NO_USERNS);
    const checks = byId(report);
    expect(code).toBe(1);
    expect(checks['user-namespaces']).toMatchObject({ available: false, state: 'user.max_user_namespaces = 0' });
    expect(checks['user-namespaces'].turnOn.commands).toEqual(['sudo sysctl -w user.max_user_namespaces=10000']);
    // What needs them goes with them; what does not stays.
    expect(checks['copy-on-write'].available).toBe(false);
    expect(checks['network-judge'].available).toBe(false);
    expect(checks.landlock.available).toBe(true);
    // The CLI's words for the way out; the library's in isSupported().
    expect(report.exec.supported).toBe(false);
    expect(report.exec.reason).toContain('`sudo sysctl -w user.max_user_namespaces=10000`');
    expect(report.exec.reason).toContain('--allow-weaker');
    expect(report.exec.reason).not.toContain('allowWeakerEnforcement');
    const library = support(NO_USERNS);
    expect(library.supported).toBe(false);
    expect(library.reason).toContain('allowWeakerEnforcement: true');
    expect(library.reason).toContain('`sudo sysctl -w user.max_user_namespaces=10000`');
    expect(library.reason).not.toContain('--allow-weaker');
    const text = doctor(NO_USERNS);
    expect(text.stdout).toMatch(/^no {3}unprivileged user namespaces \(user\.max_user_namespaces = 0\)$/m);
    expect(text.stdout).toContain('turn it on: sudo sysctl -w user.max_user_namespaces=10000');
  });

  withPython('Landlock (its first call answers ENOSYS)', () => {
    const noLandlock = ['python3', path.join(__dirname, 'fixtures', 'no-landlock.py')];
    const { code, report } = doctorJson(noLandlock);
    const checks = byId(report);
    expect(code).toBe(1);
    expect(checks.landlock).toMatchObject({ available: false, state: null });
    expect(checks.landlock.turnOn.note).toContain('CONFIG_SECURITY_LANDLOCK');
    expect(checks.seccomp.available).toBe(true);
    expect(report.exec.reason).toContain('Landlock is not available');
    expect(report.exec.reason).toContain('--allow-weaker');
    expect(support(noLandlock)).toEqual({ supported: false, reason: expect.stringContaining('allowWeakerEnforcement') });
  });

  // This kernel may have no AppArmor: the sysctl is read from a stand-in root, as in
  // test/apparmor.test.js, and the namespaces are refused for real (test/fixtures/refused-userns.js).
  withUnshare('user namespaces under AppArmor\'s restriction, without the package\'s profile', () => {
    const hostRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-doctor-host-'));
    try {
      fs.mkdirSync(path.join(hostRoot, 'proc/sys/kernel'), { recursive: true });
      fs.writeFileSync(path.join(hostRoot, 'proc/sys/kernel/apparmor_restrict_unprivileged_userns'), '1\n');
      fs.chmodSync(hostRoot, 0o755);
      const refused = [process.execPath, path.join(__dirname, 'fixtures', 'refused-userns.js')];
      const { code, report } = doctorJson(refused, { MOUNT_SANDBOX_TEST_HOST_ROOT: hostRoot });
      const checks = byId(report);
      const load = ['npx mount-sandbox apparmor | sudo tee /etc/apparmor.d/msb-launch', 'sudo apparmor_parser -r /etc/apparmor.d/msb-launch'];
      expect(code).toBe(1);
      expect(checks.apparmor).toMatchObject({ available: false, state: expect.stringContaining('= 1, the package\'s profile not installed') });
      expect(checks.apparmor.turnOn.commands).toEqual(load);
      expect(checks['user-namespaces'].available).toBe(false);
      expect(checks['user-namespaces'].turnOn.commands).toEqual(load);
      expect(report.exec.reason).toContain('`npx mount-sandbox apparmor`');
    } finally {
      fs.rmSync(hostRoot, { recursive: true, force: true });
    }
  });

  withSetpriv('the memory cgroup (run as nobody, who may write no cgroup)', () => {
    const asNobody = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
    const { report } = doctorJson(asNobody);
    const cgroup = byId(report)['memory-cgroup'];
    expect(cgroup.available).toBe(false);
    expect(cgroup.without).toContain('private memory');
    expect(cgroup.turnOn.commands).toEqual(['systemd-run --user --scope node app.js']);
    // exec still runs with its defaults: the cgroup is not a required layer.
    expect(report.exec).toEqual(support(asNobody));
  });
});
