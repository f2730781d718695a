'use strict';

// The listeners msb-launch makes inside the command's own network namespace for a network
// allowlist (policy key `listen`, src/launcher/network_listeners.h) and hands to the caller over
// descriptor 5: the caller serves them, and they are the command's only way out. Runs the real
// launcher through lib/exec/exec.js's internal run(), with a policy as exec builds one.
const dgram = require('dgram');
const fs = require('fs');
const net = require('net');
const { spawn } = require('child_process');
const os = require('os');
const path = require('path');
const { _runLauncher } = require('../lib/exec/exec');
const { launcherPath } = require('../lib/exec/launcher');
const { addon } = require('../lib/common/native');
const { IS_ROOT, launcherPolicy, launchSync, needs, SYSTEM_READ } = require('./exec-helpers');
const { removeDir } = require('./helpers');

const LISTEN = { http: 3128, socks: 1080, dns: true, capture: [80, 443] };
const RESOLV_CONF = 'nameserver 127.0.0.1\noptions attempts:1 timeout:2\n';
const BASH = '/bin/bash';

let tmp;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-listen-'));
});
afterEach(() => removeDir(tmp));

// A policy for bash, as lib/exec/view.js's launchPolicy builds one (network off), plus `extra`.
function bashPolicy(script, extra = {}) {
  return launcherPolicy([BASH, '-c', script], {
    cwd: '/tmp',
    hostCwd: tmp,
    paths: [...SYSTEM_READ, { path: tmp, access: 'write', target: '/tmp' }, { path: '/dev/null', access: 'device', target: '/dev/null' }],
    ...extra,
  });
}

// One launcher run; `serve(listeners)` is called with what arrived on descriptor 5 while the
// command runs. Resolves to the run and the listeners (or the receive's rejection).
async function runListening(policy, serve = async () => {}) {
  let received = null;
  let served = Promise.resolve();
  const ran = await _runLauncher(policy, {
    maxOutputBytes: 1 << 20,
    timeoutMs: 20_000,
    onListeners: (promise) => {
      received = promise.then((listeners) => ({ listeners }), (error) => ({ error }));
      served = received.then(({ listeners }) => listeners && serve(listeners));
    },
  });
  await served;
  return { ran, outcome: received === null ? null : await received, stdout: ran.stdout.text(), stderr: ran.stderr.text() };
}

const closeAll = (listeners) => listeners.forEach(({ fd }) => { try { fs.closeSync(fd); } catch { /* served and closed */ } });

describe('listen: the launcher hands its listeners over descriptor 5', () => {
  needs('network-namespace')('[network-namespace] http, socks, dns and capture listeners arrive, and each carries the command\'s traffic', async () => {
    const script = [
      'ls /proc/self/fd | sort | tr "\\n" " "; echo',
      'cat /etc/resolv.conf',
      'exec 7<>/dev/tcp/127.0.0.1/3128 && echo hello-http >&7 && read -t 5 -r line <&7 && echo "http said $line"',
      'exec 8<>/dev/tcp/127.5.6.7/443 && echo hello-443 >&8 && read -t 5 -r line <&8 && echo "443 said $line"',
      'echo hello-dns > /dev/udp/127.0.0.1/53 && echo dns sent',
    ].join('\n');
    const seen = { http: null, capture443: null, dns: null };
    const servers = [];
    const { ran, outcome, stdout, stderr } = await runListening(bashPolicy(script, { listen: LISTEN }), async (listeners) => {
      const byLabel = Object.fromEntries(listeners.map((l) => [l.label, l.fd]));
      const lineServer = (label, onLine) => {
        const server = net.createServer((socket) => {
          socket.once('data', (data) => {
            onLine(data.toString(), socket);
            socket.end(`${label}-ok\n`);
          });
        });
        server.listen({ fd: byLabel[label] });
        servers.push(server);
      };
      lineServer('http', (text) => { seen.http = text; });
      lineServer('capture 443', (text, socket) => { seen.capture443 = { text, local: socket.localAddress, port: socket.localPort }; });
      const udp = dgram.createSocket('udp4');
      udp.on('message', (msg) => { seen.dns = msg.toString(); });
      await new Promise((resolve) => udp.bind({ fd: byLabel.dns }, resolve));
      servers.push(udp);
      closeAll(listeners.filter((l) => !['http', 'capture 443', 'dns'].includes(l.label)));
    });
    try {
      expect(ran.status.error).toBeNull();
      expect(outcome.listeners.map((l) => l.label)).toEqual(['http', 'socks', 'dns', 'capture 80', 'capture 443']);
      const lines = stdout.split('\n');
      // 3 is the directory ls reads: neither descriptor 5 nor any listener reached the command.
      expect(lines[0].trim()).toBe('0 1 2 3');
      expect(stdout).toContain(RESOLV_CONF);
      expect(stdout).toContain('http said http-ok\n');
      expect(stdout).toContain('443 said capture 443-ok\n');
      expect(stdout).toContain('dns sent\n');
      expect(stderr).toBe('');
      expect(seen.http).toBe('hello-http\n');
      expect(seen.capture443).toEqual({ text: 'hello-443\n', local: '127.5.6.7', port: 443 });
      // A datagram may be read after the command ended.
      for (let i = 0; i < 50 && seen.dns === null; i += 1) await new Promise((r) => setTimeout(r, 20));
      expect(seen.dns).toBe('hello-dns\n');
    } finally {
      for (const s of servers) s.close();
    }
  });

  // Every process of the host that holds the socket `inode`, and how many processes' descriptors
  // could be read at all (the PID namespace's init is not dumpable: only root reads its list).
  function holders(inode) {
    const found = [];
    let read = 0;
    for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
      let fds;
      try {
        fds = fs.readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      read += 1;
      for (const fd of fds) {
        try {
          if (fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) found.push(Number(pid));
        } catch { /* closed meanwhile */ }
      }
    }
    return { found, read };
  }

  needs('network-namespace')('[network-namespace] once the listeners arrived, no process holds the launcher\'s end of the channel: not the launcher, its init or the command', async () => {
    const [parentFd, childFd] = addon().socketPair();
    const inode = fs.fstatSync(childFd).ino;
    // Control: the scan finds a holder (this process).
    expect(holders(inode).found).toEqual([process.pid]);
    const policyFile = path.join(tmp, 'policy.json');
    fs.writeFileSync(policyFile, JSON.stringify(bashPolicy('echo started; read -t 10 -r line; echo done', { listen: { http: 3128 } })));
    const policyFd = fs.openSync(policyFile, 'r');
    const child = spawn(launcherPath(), [], { stdio: ['pipe', 'pipe', 'pipe', 'pipe', policyFd, childFd], env: {}, detached: true });
    fs.closeSync(policyFd);
    fs.closeSync(childFd);
    try {
      const listeners = await addon().receiveListeners(parentFd);
      expect(listeners.map((l) => l.label)).toEqual(['http']);
      closeAll(listeners);
      // The command is running (and init waits for it) while we look.
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const seen = holders(inode);
      expect(seen.found).toEqual([]);
      expect(seen.read).toBeGreaterThan(1);
      child.stdin.end('go\n');
      const out = await new Promise((resolve) => { let text = ''; child.stdout.on('data', (d) => { text += d; }); child.on('close', () => resolve(text)); });
      expect(out).toBe('done\n');
    } finally {
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* ended */ }
    }
  });

  needs('network-namespace')('[network-namespace] the listeners are in the command\'s namespace: the host\'s port of the same number sees nothing', async () => {
    const host = net.createServer((socket) => socket.destroy());
    const listening = await new Promise((resolve) => {
      host.once('error', () => resolve(false));
      host.listen(3128, '127.0.0.1', () => resolve(true));
    });
    let kept = [];
    try {
      const script = 'exec 7<>/dev/tcp/127.0.0.1/3128 && echo connected';
      const { ran, outcome, stdout } = await runListening(bashPolicy(script, { listen: { http: 3128 } }), async (listeners) => { kept = listeners; });
      expect(ran.status.error).toBeNull();
      expect(outcome.listeners.map((l) => l.label)).toEqual(['http']);
      // Queued in the backlog of the listener we hold, not served yet.
      expect(stdout).toBe('connected\n');
      if (listening) expect(await new Promise((r) => host.getConnections((e, n) => r(n)))).toBe(0);
    } finally {
      closeAll(kept);
      host.close();
    }
  });

  needs('network-namespace')('[network-namespace] with listen, a host /etc bound whole still gives the command the run\'s own resolv.conf', async () => {
    // A host /etc whose resolv.conf names the host's resolver through a symlink into /run.
    const etc = path.join(tmp, 'etc');
    fs.mkdirSync(etc);
    fs.symlinkSync('/run/systemd/resolve/stub-resolv.conf', path.join(etc, 'resolv.conf'));
    fs.writeFileSync(path.join(etc, 'hosts'), '10.9.8.7 the-host\n');
    const policy = bashPolicy('cat /etc/resolv.conf; : > /etc/resolv.conf || echo read-only', { listen: { dns: true } });
    policy.paths.push({ path: etc, access: 'read', target: '/etc' });
    policy.cwd = '/';
    const { ran, outcome, stdout } = await runListening(policy, async (listeners) => closeAll(listeners));
    expect(ran.status.error).toBeNull();
    expect(outcome.listeners.map((l) => l.label)).toEqual(['dns']);
    expect(stdout).toBe(`${RESOLV_CONF}read-only\n`);
    // The file bound over the host's leaves no name behind in the root.
    const listing = await runListening(bashPolicy('ls -A /', { listen: {} }), async (listeners) => closeAll(listeners));
    expect(listing.stdout.split('\n')).not.toContain('.resolv.conf');
  });

  needs('network-namespace')('[network-namespace] without listen nothing changes: no descriptor 5, no resolv.conf, no callback', async () => {
    const script = 'ls /proc/self/fd | sort | tr "\\n" " "; echo; test -e /etc/resolv.conf && echo has-resolv-conf; exit 0';
    const { ran, outcome, stdout } = await runListening(bashPolicy(script));
    expect(ran.status.error).toBeNull();
    expect(outcome).toBeNull();
    expect(stdout).toBe('0 1 2 3 \n');
  });

  needs('network-namespace')('[network-namespace] a channel passed without listen is closed by the launcher, never inherited', async () => {
    const [parentFd, childFd] = addon().socketPair();
    try {
      const script = 'ls /proc/self/fd | sort | tr "\\n" " "';
      const result = launchSync(bashPolicy(script), childFd);
      fs.closeSync(childFd);
      expect(result.status).toMatch(/^ok /m);
      expect(result.stdout).toBe('0 1 2 3 ');
      // The launcher's copy went with it: the receive ends at once, with nothing.
      await expect(addon().receiveListeners(parentFd)).resolves.toEqual([]);
    } catch (error) {
      fs.closeSync(parentFd);
      throw error;
    }
  });
});

describe('listen: refusals', () => {
  test('a malformed listen fails the policy stage and runs nothing', () => {
    for (const listen of [{ http: 0 }, { http: 70000 }, { capture: [80, 80] }, { http: 80, capture: [80] }, { dns: 'yes' }, { udp: 53 }, []]) {
      const result = launchSync(bashPolicy('echo ran', { listen }));
      expect([listen, result.status]).toEqual([listen, 'error policy 0\n']);
      expect(result.stdout).toBe('');
    }
    // The listeners stand for the network: never with the host's.
    expect(launchSync(bashPolicy('echo ran', { listen: {}, network: true })).status).toBe('error policy 0\n');
  });

  needs('network-namespace')('[network-namespace] listen without the channel on descriptor 5 fails before the command runs', () => {
    const result = launchSync(bashPolicy('echo ran', { listen: { http: 3128 } }));
    expect(result.status).toBe(`error network-listeners ${os.constants.errno.EBADF}\n`);
    expect(result.stdout).toBe('');
  });

  test('listen without a network namespace fails as network-filter-unavailable, unless weaker is allowed: then nothing arrives and the command has no network', async () => {
    const script = 'exec 7<>/dev/tcp/127.0.0.1/3128 && echo connected; exit 0';
    const refused = await runListening(bashPolicy(script, { listen: LISTEN, namespaces: 'off' }));
    // Root is refused earlier: without the namespaces, it could chmod what it only may read.
    const stage = IS_ROOT ? 'namespaces-required' : 'network-filter-unavailable';
    expect(refused.ran.status.error).toEqual({ stage, errno: 0, syscall: undefined });
    expect(refused.stdout).toBe('');
    expect(refused.outcome).toEqual({ listeners: [] });

    const weaker = await runListening(bashPolicy(script, { listen: LISTEN, namespaces: 'off', allowWeaker: true }));
    expect(weaker.ran.status.error).toBeNull();
    expect(weaker.outcome).toEqual({ listeners: [] });
    expect(weaker.stdout).toBe('');
    expect(weaker.stderr).toMatch(/Permission denied|Operation not permitted|Function not implemented/);
  });
});
