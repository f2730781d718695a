'use strict';

// exec's refusal for want of user namespaces, said in each door's words: the library names its
// options (namespaces: "prefer", allowWeakerEnforcement), the CLI and the MCP server their flags
// (--namespaces prefer, --allow-weaker), from one message source (lib/exec/refusal.js). The
// refusal is real: the test runs as uid 1000 in a user namespace whose parent allows one
// namespace, the one it runs in, so the launcher's own is refused (test/fixtures/refused-userns.js).
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { testNeeding, tempDirEach } = require('./helpers');
const { startServer } = require('./helpers/mcp-client');

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'mount-sandbox.js');

jest.setTimeout(60000);

const canUnshare = spawnSync('unshare', ['--user', '--map-root-user', 'true']).status === 0;
const withUnshare = testNeeding(canUnshare ? null : 'unshare cannot make a user namespace here, so none can be refused');

let base;
tempDirEach('msb-refusal-words-', (dir) => {
  base = dir;
});

// `argv` run as uid 1000 where no user namespace can be made below it.
const REFUSED = path.join(__dirname, 'fixtures', 'refused-userns.js');
function whereRefused(argv) {
  const r = spawnSync(process.execPath, [REFUSED, ...argv], { encoding: 'utf8', timeout: 45000, cwd: '/' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// A config whose sandbox is a directory uid 1000 may use.
function project() {
  fs.chmodSync(base, 0o755);
  const dir = path.join(base, 'project');
  fs.mkdirSync(dir, { mode: 0o777 });
  fs.chmodSync(dir, 0o777);
  // The root beside the config: a config inside a writable root is bound read-only, which makes
  // the namespace layer indispensable (another refusal, tested below).
  fs.mkdirSync(path.join(dir, 'work'), { mode: 0o777 });
  fs.chmodSync(path.join(dir, 'work'), 0o777);
  fs.writeFileSync(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: work\n');
  return dir;
}

const cli = (args) => whereRefused([process.execPath, BIN, ...args]);

describe('where the kernel refuses user namespaces', () => {
  withUnshare('the CLI names --allow-weaker and --namespaces, and --namespaces prefer runs', () => {
    const dir = project();
    const refused = cli(['exec', '--config', dir, '--', 'echo', 'ran']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^mount-sandbox: Refusing to run: unprivileged user namespaces are not available here/);
    expect(refused.stderr).toContain('--namespaces prefer runs without them');
    expect(refused.stderr).toContain('Give --allow-weaker to run');
    expect(refused.stderr).toContain('`npx mount-sandbox doctor`');
    expect(refused.stderr).not.toMatch(/allowWeakerEnforcement|namespaces: "/);
    const json = JSON.parse(cli(['exec', '--json', '--config', dir, '--', 'true']).stdout);
    expect(json.error.code).toBe('ENFORCEMENT_UNAVAILABLE');
    expect(json.error.message).toContain('--allow-weaker');
    expect(json.error.message).not.toContain('allowWeakerEnforcement');
    const prefer = cli(['exec', '--namespaces', 'prefer', '--config', dir, '--', 'echo', 'ran']);
    expect([prefer.code, prefer.stdout]).toEqual([0, 'ran\n']);
    const weaker = cli(['exec', '--allow-weaker', '--config', dir, '--', 'echo', 'ran']);
    expect([weaker.code, weaker.stdout]).toEqual([0, 'ran\n']);
  });

  withUnshare('where the layer is indispensable, the CLI names --allow-weaker and --namespaces', () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n');
    const refused = cli(['exec', '--namespaces', 'prefer', '--config', dir, '--', 'true']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the namespace layer is indispensable here');
    expect(refused.stderr).toContain('--namespaces off was given. Give --allow-weaker to run');
    expect(refused.stderr).not.toMatch(/allowWeakerEnforcement|namespaces: "/);
  });

  withUnshare('the library names its options', () => {
    const dir = project();
    const script = `
      const ms = require(${JSON.stringify(ROOT)});
      ms.createMountSandbox({ root: ${JSON.stringify(dir)} }).exec(['true'])
        .then(() => console.log('ran'), (e) => console.log(e.message));`;
    const out = whereRefused([process.execPath, '-e', script]).stdout;
    expect(out).toContain('namespaces: "prefer" runs without them');
    expect(out).toContain('Pass { allowWeakerEnforcement: true } to run');
    expect(out).not.toContain('--allow-weaker');
  });
});

describe('the MCP server, where the kernel refuses user namespaces', () => {
  const MCP_BIN = path.join(ROOT, 'mcp', 'bin', 'mount-sandbox-mcp.js');
  const callExec = async (root, flags) => {
    const server = await startServer([process.execPath, MCP_BIN, '--root', root, ...flags], { bin: REFUSED });
    try {
      const result = await server.client.callTool({ name: 'exec', arguments: { command: 'echo ran' } });
      return { error: result.isError === true, text: result.content.map((c) => c.text).join('\n') };
    } finally {
      await server.close();
    }
  };

  withUnshare('its exec names the server\'s flags, which run the command', async () => {
    const root = path.join(project(), 'work');
    const refused = await callExec(root, []);
    expect(refused.error).toBe(true);
    expect(refused.text).toContain("mount-sandbox-mcp's --namespaces prefer runs without them");
    expect(refused.text).toContain('Starting mount-sandbox-mcp with --allow-weaker runs commands');
    expect(refused.text).not.toMatch(/allowWeakerEnforcement|namespaces: "/);
    expect(await callExec(root, ['--namespaces', 'prefer'])).toEqual({ error: false, text: expect.stringContaining('ran') });
    expect(await callExec(root, ['--allow-weaker'])).toEqual({ error: false, text: expect.stringContaining('ran') });
  });
});

test('--namespaces takes require, prefer or off, and nothing else', () => {
  const r = spawnSync(process.execPath, [BIN, 'exec', '--namespaces', 'sometimes', '--', 'true'], { encoding: 'utf8', cwd: os.tmpdir() });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('--namespaces needs one of require, prefer, off, got "sometimes"');
  expect(spawnSync(process.execPath, [BIN, 'exec', '--help'], { encoding: 'utf8' }).stdout).toContain('--namespaces mode');
});
