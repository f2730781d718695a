'use strict';

// `npm start` (example/demo.js) shows what the README claims: every refusal, file operation or
// command, names only virtual paths; commands see the sandbox at /workspace and nothing of the
// host beside it. The demo copies its project into a private TMPDIR, so any host path it could
// print starts there.
const { testIf } = require('./helpers/skips');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { isSupported } = require('..');

const ROOT = path.join(__dirname, '..');

jest.setTimeout(120000);

let tmp;
let demo;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-demo-'));
  const env = { ...process.env, TMPDIR: tmp };
  demo = spawnSync(process.execPath, [path.join(ROOT, 'example', 'demo.js')], { cwd: ROOT, env, encoding: 'utf8', timeout: 110000 });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('the demo runs to the end and leaves nothing behind', () => {
  expect(demo.stderr).toBe('');
  expect(demo.status).toBe(0);
  expect(demo.stdout).toContain('host check: src/app.ts unchanged: true; out/summary.md written: true');
  expect(fs.readdirSync(tmp)).toEqual([]);
});

test('its output names no host path', () => {
  expect(demo.stdout).toContain('refused');
  expect(demo.stdout).not.toContain(tmp);
  expect(demo.stdout).not.toContain(fs.realpathSync(tmp));
  expect(demo.stdout).not.toContain(ROOT);
  expect(demo.stdout).not.toMatch(/mount-sandbox-demo-/);
});

const exec = isSupported().exec;
testIf(exec.supported, 'commands cannot run here (isSupported().exec.supported is false)')('its commands see the sandbox at /workspace and are refused there', () => {
  const shell = demo.stdout.slice(demo.stdout.indexOf('shell commands (sandbox.exec)'));
  expect(shell).toMatch(/^ {11}\/workspace\/src$/m); // pwd
  expect(shell).toMatch(/^ {11}\/bin \/dev \/etc .*\/tmp \/usr \/workspace$/m); // the whole root
  expect(shell).toContain('cat: ../home/.ssh/id_ed25519: No such file or directory');
  expect(shell).toContain('cannot create cache/packages.json: Read-only file system');
  expect(shell).toContain("chmod: changing permissions of 'cache/packages.json': Read-only file system");
  expect(shell).toContain('host check: /cache/packages.json unchanged (content and mode): true');
});
