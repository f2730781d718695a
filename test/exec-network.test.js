'use strict';

// sandbox.exec with the network off, and what else of the host (unix and abstract sockets,
// System V IPC, /etc, /proc/net) the command can reach.
// Setup, layer checks and helpers shared by the exec-*.test.js files: exec-helpers.js.
const fs = require('fs');
const net = require('net');
const dgram = require('dgram');
const path = require('path');
const { execFileSync, spawn } = require('child_process');
const {
  PERL, q, sleep, NETNS, run, skipped, needs, needsPerl, NODE_OPTIONS, nodeScript, connectScript,
  countingServer, listen, closeServer, connectionsWhile, useExecFixture,
} = require('./exec-helpers');

let base, root, home, sandbox; // set before each test
useExecFixture((fixture) => ({ base, root, home, sandbox } = fixture));

describe('network off', () => {
  let server;

  beforeEach(async () => {
    server = countingServer();
    await listen(server, 0, '127.0.0.1');
  });

  afterEach(() => closeServer(server));

  needs(['seccomp', 'landlock-net'], { any: true })('[seccomp / landlock-net] a TCP connect to a listener on 127.0.0.1 fails and the listener sees nothing', async () => {
    const { port } = server.address();
    const result = await run(sandbox, nodeScript(connectScript({ host: '127.0.0.1', port })), NODE_OPTIONS);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).not.toContain('connected');
    // In its own network namespace the command's 127.0.0.1 is its own: nothing listens there.
    expect(result.stderr).toMatch(NETNS ? /ECONNREFUSED/ : /EACCES/);
    await sleep(100);
    expect(server.connections).toBe(0);
  });

  needs([])('[control] the same TCP connect succeeds with { network: true }', async () => {
    const { port } = server.address();
    const result = await run(sandbox, nodeScript(connectScript({ host: '127.0.0.1', port })), { ...NODE_OPTIONS, network: true });
    expect(result.stdout).toContain('connected');
    expect(result.exitCode).toBe(0);
    for (let i = 0; i < 100 && server.connections === 0; i++) await sleep(20);
    expect(server.connections).toBe(1);
  });

  needs(['seccomp', 'landlock-net'], { any: true })('[seccomp / landlock-net] listening on a TCP port fails (nothing answers on it while the command runs)', async () => {
    const probe = net.createServer();
    await listen(probe, 0, '127.0.0.1');
    const { port } = probe.address();
    await closeServer(probe);
    const script = `
      const s = require('net').createServer((c) => c.end('from-sandbox'));
      s.on('error', (e) => { console.error('listen error: ' + e.code); setTimeout(() => process.exit(1), 1500); });
      s.listen(${port}, '127.0.0.1', () => { console.log('listening'); setTimeout(() => process.exit(0), 1500); });`;
    const running = run(sandbox, nodeScript(script), NODE_OPTIONS);
    const answered = await connectionsWhile(running, () => port);
    const result = await running;
    if (NETNS) {
      // It may listen on its own loopback (test suites do), which the host cannot reach.
      expect(result.stdout).toContain('listening');
    } else {
      expect(result.stdout).not.toContain('listening');
      expect(result.stderr).toMatch(/EACCES/);
    }
    expect(answered).toBe(0);
  });

  // Landlock checks connect() and bind(); a Fast Open sendto() and listen()'s automatic bind go
  // around both, so with the network off socket() itself must fail.
  needsPerl('seccomp')('[seccomp] a TCP Fast Open sendto to the listener does not reach it', async () => {
    const { port } = server.address();
    const perl = `use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\\n";
      my $r = send($s, "fast-open", 0x20000000, pack_sockaddr_in(${port}, inet_aton("127.0.0.1")));
      print defined $r ? "sent=$r\\n" : "send: $!\\n"; sleep 1;`;
    const result = await run(sandbox, [PERL, '-e', perl]);
    expect(result.stdout).not.toMatch(/sent=/);
    await sleep(100);
    expect(server.connections).toBe(0);
  });

  needsPerl('seccomp')('[seccomp] listen() without bind (automatic port) does not open a port', async () => {
    const portFile = path.join(root, 'port.txt');
    const perl = `use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\\n";
      listen($s, 5) or die "listen: $!\\n"; my ($port) = unpack_sockaddr_in(getsockname($s));
      open(my $f, ">", "port.txt") or die; print $f $port; close $f; print "listening\\n"; sleep 2;`;
    const running = run(sandbox, [PERL, '-e', perl]);
    const answered = await connectionsWhile(running, () => Number(fs.existsSync(portFile) ? fs.readFileSync(portFile, 'utf8') : 0));
    const result = await running;
    if (NETNS) {
      expect(result.stdout).toContain('listening');
    } else {
      expect(result.stdout).not.toContain('listening');
      expect(fs.existsSync(portFile)).toBe(false);
    }
    expect(answered).toBe(0);
  });

  needs('seccomp')('[seccomp] a UDP send to a socket bound on 127.0.0.1 fails and nothing is received', async () => {
    const udp = dgram.createSocket('udp4');
    let received = 0;
    udp.on('message', () => { received += 1; });
    await new Promise((resolve) => udp.bind(0, '127.0.0.1', resolve));
    const script = (port) => `
      const s = require('dgram').createSocket('udp4');
      s.on('error', (e) => { console.error('udp error: ' + e.message); process.exit(1); });
      s.send('attack', ${port}, '127.0.0.1', (e) => { if (e) { console.error('send error: ' + e.code); process.exit(1); } console.log('sent'); s.close(); });`;
    try {
      const { port } = udp.address();
      const result = await run(sandbox, nodeScript(script(port)), NODE_OPTIONS);
      if (!NETNS) {
        expect(result.exitCode).not.toBe(0);
        expect(result.stdout).not.toContain('sent');
        expect(result.stderr).toMatch(/EACCES/);
        expect(result.stderr).toMatch(/Note: Network access is disabled for this worker\.\n$/);
        expect(result.stderr).not.toMatch(/can write only/);
      }
      await sleep(200);
      expect(received).toBe(0);
      // Control: with the network on, the datagram arrives.
      const allowed = await run(sandbox, nodeScript(script(port)), { ...NODE_OPTIONS, network: true });
      expect(allowed.stdout).toContain('sent');
      for (let i = 0; i < 100 && received === 0; i++) await sleep(20);
      expect(received).toBe(1);
    } finally {
      udp.close();
    }
  });

  (NETNS ? skipped('in its own network namespace the command may use unix sockets: see "what the command can reach of the host besides files"') : needs('seccomp'))('[seccomp] connecting to a unix socket in the writable root fails and the server sees nothing', async () => {
    const unix = countingServer();
    const socketPath = path.join(root, 'app.sock');
    await listen(unix, socketPath);
    try {
      const result = await run(sandbox, nodeScript(connectScript(socketPath)), NODE_OPTIONS);
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).not.toContain('connected');
      expect(result.stderr).toMatch(/EACCES/);
      await sleep(100);
      expect(unix.connections).toBe(0);
      // Control: with the network on, it connects.
      const allowed = await run(sandbox, nodeScript(connectScript(socketPath)), { ...NODE_OPTIONS, network: true });
      expect(allowed.stdout).toContain('connected');
      for (let i = 0; i < 100 && unix.connections === 0; i++) await sleep(20);
      expect(unix.connections).toBe(1);
    } finally {
      await closeServer(unix);
    }
  });
});

describe('what the command can reach of the host besides files', () => {
  // An abstract unix socket has no file for Landlock's file rules to govern: X11 and some D-Bus
  // buses listen on one. Only the abstract-socket scope keeps a command out, network on or off.
  needs('landlock-abstract-unix-scope')('[landlock-abstract-unix-scope] a host abstract unix socket refuses the command, with the network on too', async () => {
    const server = countingServer();
    await listen(server, `\0mount-sandbox-test-${process.pid}-${Date.now()}`);
    try {
      for (const network of [false, true]) {
        const result = await run(sandbox, nodeScript(connectScript(server.address())), { ...NODE_OPTIONS, network });
        expect(result.stdout).not.toContain('connected');
        expect(result.exitCode).not.toBe(0);
        expect(result.enforcement.layers).toContain('landlock-abstract-unix-scope');
      }
      await sleep(100);
      expect(server.connections).toBe(0);
    } finally {
      await closeServer(server);
    }
  });

  // System V IPC objects belong to an IPC namespace, not to the filesystem: without one of its
  // own, the command reads and overwrites a same-user host segment by its id.
  needsPerl('mount-namespace')('[ipc-namespace] a host System V shared memory segment cannot be read or written', async () => {
    // IPC_PRIVATE is 0 and IPC_CREAT 01000: IPC::SysV is not in perl-base (the Debian 11 root).
    const create = 'my $id = shmget(0, 64, 01000 | 0600) // die "shmget: $!"; ' +
      'shmwrite($id, "host-secret", 0, 11) or die "shmwrite: $!"; print $id';
    const id = execFileSync(PERL, ['-e', create], { encoding: 'utf8' }).trim();
    try {
      const attack = 'my ($id) = @ARGV; my $buf; if (shmread($id, $buf, 0, 11)) { print "read:$buf\\n" } ' +
        'else { print "refused\\n" } print shmwrite($id, "overwritten", 0, 11) ? "wrote\\n" : "not written\\n"';
      const result = await run(sandbox, [PERL, '-e', attack, id]);
      expect(result.stdout).toBe('refused\nnot written\n');
      expect(result.enforcement.layers).toContain('ipc-namespace');
      const after = execFileSync(PERL, ['-e', 'my $b; shmread($ARGV[0], $b, 0, 11) or die; print $b', id], { encoding: 'utf8' });
      expect(after).toBe('host-secret');
    } finally {
      execFileSync('ipcrm', ['-m', id]);
    }
  });

  // Landlock does not govern connect() on unix socket files; the command's root holds none of the
  // host's (docker.sock, an ssh-agent, X11's /tmp/.X11-unix), with the network on or off.
  needs('private-root')('[private-root] a host unix stream socket outside the mounts is unreachable, network on and off', async () => {
    const server = countingServer();
    const socketPath = path.join(home, 'agent.sock');
    await listen(server, socketPath);
    try {
      for (const network of [false, true]) {
        const result = await run(sandbox, nodeScript(connectScript(socketPath)), { ...NODE_OPTIONS, network });
        expect([network, result.stdout]).toEqual([network, '']);
        expect(result.stderr).toMatch(/ENOENT/);
      }
      await sleep(100);
      expect(server.connections).toBe(0);
    } finally {
      await closeServer(server);
    }
  });

  // A datagram socket needs no connection: socketpair() or socket() then sendto() a path would
  // reach a host daemon's socket, and pass it descriptors.
  needsPerl('private-root')('[private-root] a host unix datagram socket outside the mounts receives nothing, network on and off', async () => {
    const socketPath = path.join(home, 'dgram.sock');
    const countFile = path.join(base, 'dgram-count');
    // The host's receiver: binds, counts what arrives for 3 s, writes the count.
    const receiver = spawn(PERL, ['-e', `use Socket; socket(my $s, PF_UNIX, SOCK_DGRAM, 0) or die; bind($s, pack_sockaddr_un($ARGV[0])) or die "bind: $!";
      print "ready\\n"; $| = 1; my $n = 0; my $rin = ''; vec($rin, fileno($s), 1) = 1; my $end = time + 3;
      while (time < $end) { if (select(my $r = $rin, undef, undef, 0.2)) { recv($s, my $b, 100, 0); $n++ } }
      open(my $f, ">", $ARGV[1]) or die; print $f $n; close $f;`, socketPath, countFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => receiver.stdout.once('data', resolve));
    const send = `use Socket; my $to = pack_sockaddr_un($ARGV[0]);
      socket(my $s, PF_UNIX, SOCK_DGRAM, 0) or print "socket: $!\\n";
      if ($s) { print defined(send($s, "x", 0, $to)) ? "sent\\n" : "send: $!\\n" }
      socketpair(my $a, my $b, AF_UNIX, SOCK_DGRAM, 0) or die "socketpair: $!";
      print defined(send($a, "x", 0, $to)) ? "pair sent\\n" : "pair send: $!\\n";`;
    for (const network of [false, true]) {
      const result = await run(sandbox, [PERL, '-e', send, socketPath], { network });
      expect([network, result.stdout]).toEqual([network, expect.not.stringMatching(/^(pair )?sent$/m)]);
    }
    await new Promise((resolve) => receiver.on('exit', resolve));
    fs.unlinkSync(socketPath);
    expect(fs.readFileSync(countFile, 'utf8')).toBe('0');
  });

  needsPerl('ipc-namespace')('[ipc-namespace] a host System V message queue receives nothing and keeps its message', async () => {
    const create = 'my $id = msgget(0, 01000 | 0600) // die "msgget: $!"; msgsnd($id, pack("l! a*", 1, "host-message"), 0) or die; print $id';
    const id = execFileSync(PERL, ['-e', create], { encoding: 'utf8' }).trim();
    try {
      const attack = 'my ($id) = @ARGV; print msgsnd($id, pack("l! a*", 1, "planted"), 0) ? "sent\\n" : "send refused\\n"; ' +
        'print msgrcv($id, my $m, 100, 0, 04000) ? "took:$m\\n" : "receive refused\\n"';
      const result = await run(sandbox, [PERL, '-e', attack, id]);
      expect(result.stdout).toBe('send refused\nreceive refused\n');
      const after = execFileSync('ipcs', ['-q', '-i', id], { encoding: 'utf8' });
      expect(after).toMatch(/qnum=1\b/);
    } finally {
      execFileSync('ipcrm', ['-q', id]);
    }
  });

  needs('private-root')('[private-root] of /etc only the allowlist exists: no /etc/ssl/private, shadow or sudoers', async () => {
    const result = await run(sandbox, ['sh', '-c', 'ls /etc/ssl 2>/dev/null; echo --; for f in /etc/ssl/private /etc/shadow /etc/sudoers /etc/machine-id; do [ -e $f ] && echo "exists: $f"; done; ls /etc']);
    expect(result.stdout).not.toContain('exists:');
    // Of /etc/ssl, what this host has of the two (a minimal root has neither).
    const ssl = ['certs', 'openssl.cnf'].filter((name) => fs.existsSync(`/etc/ssl/${name}`));
    expect(result.stdout.split('--\n')[0].split('\n').filter(Boolean)).toEqual(ssl);
    expect(result.stdout).not.toMatch(/^(private|shadow|sudoers|resolv\.conf)$/m); // resolv.conf: network on only
    const online = await run(sandbox, ['ls', '/etc'], { network: true });
    expect(online.stdout).toMatch(/^resolv\.conf$/m);
  });

  needs('private-root')('[private-root] nothing else of the host is there: no /home, /root, /run, /var, no other sources', async () => {
    const result = await run(sandbox, ['sh', '-c', `ls -a /; ls ${q(home)} ${q(base)} /run /var /root /home 2>&1; true`]);
    const top = result.stdout.split('\n').filter((l) => l && !l.startsWith('ls:'));
    const expected = ['.', '..', 'bin', 'dev', 'etc', 'lib', 'proc', 'sbin', 'tmp', 'usr', 'workspace'];
    for (const name of top) expect([name, expected.includes(name) || /^lib(32|64|x32)$/.test(name)]).toEqual([name, true]);
    expect(result.stdout).not.toContain('secret.txt');
    expect(result.stdout).not.toContain('existing.txt');
  });

  needs('network-namespace')('[network-namespace] with the network off /proc/net shows only loopback, not the host\'s sockets', async () => {
    const server = countingServer();
    const name = `msb-proc-net-${process.pid}-${Date.now()}`;
    await listen(server, path.join(home, name));
    try {
      const result = await run(sandbox, ['sh', '-c', 'cat /proc/net/unix; cat /proc/net/dev; cat /proc/net/tcp']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toContain(name);
      const interfaces = result.stdout.split('\n').filter((l) => /^\s*\w+:\s+\d/.test(l)).map((l) => l.trim().split(':')[0]);
      expect(interfaces).toEqual(['lo']);
      // Control: the host's view has it.
      expect(fs.readFileSync('/proc/net/unix', 'utf8')).toContain(name);
    } finally {
      await closeServer(server);
    }
  });

  // inotify and xattrs are reached by path: an outside path is simply not there.
  (process.arch === 'x64' ? needsPerl('private-root') : skipped('the syscall numbers below are x86_64\'s'))(
    '[private-root] inotify on an outside directory and the xattrs of an outside file are unavailable', async () => {
      const file = path.join(home, 'secret.txt');
      // setxattr(188) on the host, where the filesystem allows user xattrs.
      const set = execFileSync(PERL, ['-e', 'my ($f, $k, $v) = ($ARGV[0], "user.note", "xattr-secret"); print syscall(188, $f, $k, $v, 12, 0)', file], { encoding: 'utf8' });
      const attack = 'my ($dir, $f, $k) = (@ARGV, "user.note"); my $fd = syscall(294, 0); print "watch=", syscall(254, $fd, $dir, 0xfff), "\\n"; ' +
        'my $buf = "\\0" x 64; my $n = syscall(191, $f, $k, $buf, 64); print "getxattr=$n\\n"; print "value=$buf\\n" if $n > 0;';
      const result = await run(sandbox, [PERL, '-e', attack, home, file]);
      expect(result.stdout).toMatch(/^watch=-1$/m);
      expect(result.stdout).toMatch(/^getxattr=-1$/m);
      expect(result.stdout).not.toContain('xattr-secret');
      if (set === '0') {
        // Control: unconfined, both work.
        const control = execFileSync(PERL, ['-e', attack, home, file], { encoding: 'utf8' });
        expect(control).toContain('xattr-secret');
      }
    });
});
