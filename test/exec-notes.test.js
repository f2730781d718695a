'use strict';

// Issue 20, point 8: what the model is told when a command fails. Real commands (sh, cat, curl,
// wget, python3, node) fail in the ways a model meets, and the exact note is checked, with a
// control for each where no note (or another one) must appear.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const ms = require('../lib');
const { testNeeding, write } = require('./helpers');
const {
  q, NETNS, run, runDirect, needs, NODE, NODE_OPTIONS, useExecFixture, countingServer, listen, closeServer, IS_ROOT,
  VIEW, EXEC_DEFAULTS,
} = require('./exec-helpers');

let base;
let root;
let sandbox;
useExecFixture((layout) => ({ base, root, sandbox } = layout));

const NETWORK_NOTE = 'Note: Network access is disabled for this worker.';
const notes = (stderr) => stderr.split('\n').filter((line) => line.startsWith('Note:'));

// A tool at its system path, so that it can run inside (and as an unprivileged user).
function tool(file) {
  return fs.existsSync(file) ? null : `${file} is not installed`;
}
const withNetns = (file) => (NETNS ? testNeeding(tool(file)) : needs('network-namespace'));

// A port nothing listens on, in the command's own network namespace and on the host.
const CLOSED_PORT = 9;

describe('[notes] (a) a connection that fails without a host name gets the network note', () => {
  const cases = [
    ['curl to 127.0.0.1', '/usr/bin/curl', ['curl', '-sS', '--max-time', '5', `http://127.0.0.1:${CLOSED_PORT}/`]],
    ['curl to an address beyond', '/usr/bin/curl', ['curl', '-sS', '--max-time', '5', 'http://192.0.2.1/']],
    ['wget to 127.0.0.1', '/usr/bin/wget', ['wget', '--no-config', '-nv', '-T', '5', '-t', '1', `http://127.0.0.1:${CLOSED_PORT}/`]],
    ['python3 to 127.0.0.1', '/usr/bin/python3',
      ['python3', '-c', `import socket; socket.create_connection(('127.0.0.1', ${CLOSED_PORT}), 5)`]],
    ['python3 to an address beyond', '/usr/bin/python3',
      ['python3', '-c', "import socket; socket.create_connection(('192.0.2.1', 80), 5)"]],
    ['node to 127.0.0.1', NODE,
      [NODE, '-e', `require('net').connect(${CLOSED_PORT}, '127.0.0.1').on('error', (e) => { console.error(e.message); process.exit(1); })`]],
  ];
  for (const [name, file, argv] of cases) {
    withNetns(file)(`${name}: the note with the network off`, async () => {
      const result = await run(sandbox, argv, NODE_OPTIONS);
      expect(result.exitCode).not.toBe(0);
      expect(notes(result.stderr)).toEqual([NETWORK_NOTE]);
    });
  }

  // Without the namespace layer, Landlock and seccomp refuse: "Permission denied", with no call named.
  const OFF = { namespaces: 'off', allowWeakerEnforcement: true, ...NODE_OPTIONS };
  for (const [name, file, argv] of cases.filter(([n]) => n.endsWith('127.0.0.1'))) {
    const when = fs.existsSync(file) ? needs(['seccomp', 'landlock-net'], { any: true }) : testNeeding(tool(file));
    when(`${name} without namespaces: the network note, not the writable-paths note`, async () => {
      const result = await run(sandbox, argv, OFF);
      expect(result.exitCode).not.toBe(0);
      expect(result.enforcement.layers).not.toContain('network-namespace');
      expect(notes(result.stderr)).toEqual([NETWORK_NOTE]);
    });
  }

  const withPython = fs.existsSync('/usr/bin/python3') ? needs('landlock-fs') : testNeeding(tool('/usr/bin/python3'));
  withPython('without namespaces, a Python file refusal keeps the writable-paths note', async () => {
    const ro = path.join(base, 'ro', 'ro.txt');
    const result = await run(sandbox, ['python3', '-c', `open(${JSON.stringify(ro)}, "w")`], OFF);
    expect(result.exitCode).not.toBe(0);
    expect(notes(result.stderr)).toHaveLength(1);
    expect(notes(result.stderr)[0]).toMatch(/^Note: \/ro\/ro\.txt is read-only in this sandbox: it lies under \/ro /);
  });

  // With the network on, the same refusals are the host's answer: no network note.
  testNeeding(tool('/usr/bin/curl'))('curl to a closed port with the network on: no note', async () => {
    const server = countingServer();
    await listen(server, 0, '127.0.0.1');
    const { port } = server.address();
    await closeServer(server); // a port just closed: refused
    const result = await run(sandbox, ['curl', '-sS', '--max-time', '5', `http://127.0.0.1:${port}/`], { network: true });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/Couldn't connect|Connection refused/);
    expect(notes(result.stderr)).toEqual([]);
  });

  needs([])('a failure that is not about the network gets no network note', async () => {
    const result = await run(sandbox, ['sh', '-c', 'echo "could not connect the dots" >&2; exit 2']);
    expect(notes(result.stderr)).toEqual([]);
  });
});

describe('[notes] (b) a refused write under a read-only place inside the writable root names that place', () => {
  needs('private-root')('a read-only mount: the note names it, not "write only to /workspace"', async () => {
    const result = await run(sandbox, ['sh', '-c', 'echo x > ro/new.txt']);
    expect(result.exitCode).not.toBe(0);
    expect(notes(result.stderr)).toEqual([
      'Note: /workspace/ro/new.txt is read-only in this sandbox: it lies under /workspace/ro (./ro from the working directory), which commands cannot change. Write elsewhere: to /workspace (. from the working directory), /workspace/data (./data from the working directory) or /tmp.',
    ]);
    expect(result.stderr).not.toContain(base);
  });

  needs('private-root')('a relative path from another working directory, refused by touch and mkdir', async () => {
    const result = await run(sandbox, ['sh', '-c', 'touch ../ro/t.txt; mkdir ../ro/sub/d'], { cwd: '/data' });
    expect(result.exitCode).not.toBe(0);
    expect(notes(result.stderr)).toEqual([
      'Note: /workspace/ro/t.txt is read-only in this sandbox: it lies under /workspace/ro (../ro from the working directory), which commands cannot change. Write elsewhere: to /workspace (.. from the working directory), /workspace/data (. from the working directory) or /tmp.',
      'Note: /workspace/ro/sub/d is read-only in this sandbox: it lies under /workspace/ro (../ro from the working directory), which commands cannot change. Write elsewhere: to /workspace (.. from the working directory), /workspace/data (. from the working directory) or /tmp.',
    ]);
  });

  needs('private-root')('the program config, kept read-only inside the writable root, is named as such', async () => {
    write(path.join(root, 'golem-forge.config.json'), '{"sandbox": {"root": "."}}\n');
    const config = await ms.findProgramConfig(root);
    const made = await ms.createSandboxFromConfig(config);
    const result = await run(made, ['sh', '-c', 'echo "{}" > golem-forge.config.json']);
    expect(result.exitCode).not.toBe(0);
    expect(notes(result.stderr)).toEqual([
      'Note: /workspace/golem-forge.config.json is read-only in this sandbox: commands cannot change it. Write elsewhere: to /workspace (. from the working directory) or /tmp.',
    ]);
    expect(fs.readFileSync(path.join(root, 'golem-forge.config.json'), 'utf8')).toBe('{"sandbox": {"root": "."}}\n');
  });

  needs('private-root')('control: a refusal outside the sandbox keeps the general note', async () => {
    const result = await run(sandbox, ['sh', '-c', 'echo x > /etc/hosts']);
    expect(notes(result.stderr)).toEqual([
      'Note: this command runs in a sandbox: the sandbox is at /workspace, it can read only the sandbox and system directories, and write only to /workspace (. from the working directory), /workspace/data (./data from the working directory) and /tmp, but not to /workspace/ro (./ro from the working directory), which is read-only.',
    ]);
  });
});

describe('[notes] (c) file-tool paths used in a command', () => {
  needs('private-root')('cat /inside.txt: the note says where that file is inside commands', async () => {
    write(path.join(root, 'src', 'app.ts'), 'export {};\n');
    const result = await run(sandbox, ['sh', '-c', 'cat /src/app.ts && cat /inside.txt'], { cwd: '/src' });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toMatch(/\/src\/app\.ts: No such file or directory/);
    expect(notes(result.stderr)).toEqual([
      'Note: file-tool paths are under /workspace in commands: /src/app.ts is /workspace/src/app.ts (./app.ts from the working directory).',
    ]);
  });

  needs('private-root')('several paths, from python3 and node too, each named once', async () => {
    // Where python3 is missing, cat names the same path first.
    const py = fs.existsSync('/usr/bin/python3') ? "python3 -c 'open(\"/data/data.txt\")'; " : 'cat /data/data.txt; ';
    const result = await run(sandbox, ['sh', '-c',
      `${py}${q(NODE)} -e 'require("fs").readFileSync("/inside.txt")'; ls /data/data.txt /inside.txt`], NODE_OPTIONS);
    expect(result.exitCode).not.toBe(0);
    expect(notes(result.stderr)).toEqual([
      'Note: file-tool paths are under /workspace in commands: /data/data.txt is /workspace/data/data.txt (./data/data.txt from the working directory), /inside.txt is /workspace/inside.txt (./inside.txt from the working directory).',
    ]);
  });

  needs('private-root')('controls: a path that exists nowhere, a system path, and success get no such note', async () => {
    const missing = await run(sandbox, ['sh', '-c', "cat /nowhere.txt /usr/nowhere /etc/nowhere; echo \"'/' and //inside.txt\" >&2; exit 1"]);
    expect(missing.exitCode).not.toBe(0);
    expect(notes(missing.stderr)).toEqual([]);
    const fine = await run(sandbox, ['sh', '-c', 'cat /inside.txt 2>/dev/null; echo /inside.txt >&2; true']);
    expect(notes(fine.stderr)).toEqual([]);
  });
});

describe('[notes] (d) refusals that come from elsewhere than the sandbox\'s rules say where', () => {
  const withGit = fs.existsSync('/usr/bin/git') ? needs('private-root') : testNeeding('/usr/bin/git is not installed');
  withGit('git config on a protected .git/config (EBUSY): the note says it is protected, and why', async () => {
    expect(spawnSync('git', ['init', '-q', root]).status).toBe(0);
    const before = fs.readFileSync(path.join(root, '.git', 'config'), 'utf8');
    const result = await runDirect(sandbox, ['git', 'config', 'user.name', 'x']);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('.git/config: Device or resource busy');
    expect(notes(result.stderr)).toEqual([
      'Note: /workspace/.git/config is protected in this sandbox: it is bound read-only in place, so replacing it (a new ' +
        'file renamed over it, as git config and sed -i do) fails with "Device or resource busy". The host\'s git reads ' +
        'it when the user next runs git there, and what a command wrote in it could make git run a program, so no ' +
        'command may change it; leave it as it is.',
    ]);
    expect(fs.readFileSync(path.join(root, '.git', 'config'), 'utf8')).toBe(before);
  });

  // The user may not write the project on the host: as root, the test makes a root-owned project
  // and runs the sandbox as nobody; as another user, a directory of its own without write.
  const noSetpriv = IS_ROOT && spawnSync('setpriv', ['--version']).status !== 0;
  const asUser = noSetpriv ? testNeeding('setpriv is not installed (as root the test runs the sandbox as nobody)') : needs([]);
  asUser('a write the host\'s permissions refuse: the note says so, not "write only to /workspace"', async () => {
    const locked = path.join(root, 'locked');
    fs.mkdirSync(locked);
    const script = `
      const ms = require(${JSON.stringify(path.join(__dirname, '..'))});
      ms.createMountSandbox({ root: ${JSON.stringify(root)} })
        .exec(['touch', 'locked/new'], ${JSON.stringify(EXEC_DEFAULTS)})
        .then((r) => console.log(JSON.stringify(r.stderr)), (e) => console.log(JSON.stringify(e.message)));`;
    let stderr;
    let uid;
    if (IS_ROOT) {
      [base, root].forEach((d) => fs.chmodSync(d, 0o755));
      fs.chmodSync(locked, 0o755);
      const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', NODE, '-e', script], { encoding: 'utf8', cwd: '/' });
      stderr = JSON.parse(r.stdout);
      uid = 65534;
    } else {
      fs.chmodSync(locked, 0o555);
      stderr = (await run(sandbox, ['touch', 'locked/new'])).stderr;
      uid = process.getuid();
    }
    const where = VIEW ? '/workspace/' : '/';
    expect(notes(stderr)).toEqual([
      `Note: ${where}locked/new lies in a writable place of this sandbox, but the host's file permissions refused the ` +
        `write, not the sandbox: ${where}locked is owned by uid ${fs.statSync(locked).uid} with mode ` +
        `${(fs.statSync(locked).mode & 0o7777).toString(8)}, and this command runs as uid ${uid}. The user can change its ` +
        `owner or mode on the host; meanwhile write to ${VIEW ? '/tmp' : 'its temporary directory ($TMPDIR)'}.`,
    ]);
    expect(fs.existsSync(path.join(locked, 'new'))).toBe(false);
  });
});
