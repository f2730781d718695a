'use strict';

// Where a sandbox's network comes from and how far each derived view may take it: createMountSandbox,
// program configs, worker files, restrict() and one exec call, which may only narrow. Every
// widening is a PermissionEscalationError, and a refused call changes nothing on disk.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  createMountSandbox,
  createSandboxFromConfig,
  loadProgramConfig,
  loadWorkerFile,
  sandboxForWorker,
  ConfigFileError,
  PermissionEscalationError,
  SandboxConfigError,
} = require('../lib');
const { tempDirEach, textBefore, write } = require('./helpers');

let base;
tempDirEach('msb-net-scope-', (dir) => {
  base = dir;
});

const CLI = path.join(__dirname, '..', 'bin', 'mount-sandbox.js');

function sandboxWith(network) {
  return createMountSandbox({ root: base, network });
}

function tmpEntries() {
  return fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('mount-sandbox-exec-')).sort();
}

function lineOf(text, needle) {
  return textBefore(text, needle).split('\n').length;
}

describe('a sandbox made with a network', () => {
  test('describe() shows it, and a sandbox without one keeps the old contract', () => {
    expect(sandboxWith({ allow: ['Registry.Test.', '*.example.test:443'], deny: ['bad.example.test'] }).describe().network).toEqual({
      mode: 'filtered', allow: ['registry.test', '*.example.test:443'], deny: ['bad.example.test'], declared: true,
    });
    expect(createMountSandbox({ root: base }).describe().network).toEqual({ mode: 'host', allow: [], deny: [], declared: false });
    expect(sandboxWith(false).describe().network).toMatchObject({ mode: 'off', declared: true });
  });

  test.each([
    [{ allow: ['*'] }, /"\*"/],
    [{ allow: ['*.com'] }, /\.com/],
    [{ allow: ['https://registry.test'] }, /URL/],
    [{ allow: ['registry.test'], extra: [] }, /extra/],
    ['registry.test', /network/],
  ])('%j is a SandboxConfigError', (network, message) => {
    expect(() => sandboxWith(network)).toThrow(SandboxConfigError);
    expect(() => sandboxWith(network)).toThrow(message);
  });
});

describe('restrict() narrows the network', () => {
  const parent = () => sandboxWith({ allow: ['registry.test', '*.example.test'], deny: ['bad.example.test'] });

  test.each([
    [true],
    [{ allow: ['evil.test'] }],
    [{ allow: ['example.test'] }], // the apex is not under *.example.test
    [{ allow: ['*.other.test'] }],
    [{ allow: ['registry.test:443', 'evil.test:443'] }],
  ])('%j widens: PermissionEscalationError', (network) => {
    expect(() => parent().restrict({ network })).toThrow(PermissionEscalationError);
  });

  test('a narrower list keeps the parent\'s deny entries, and views derived later keep the network', () => {
    const child = parent().restrict({ restrict: '/', network: { allow: ['api.example.test:443'], deny: ['registry.test'] } });
    expect(child.describe().network).toEqual({
      mode: 'filtered', allow: ['api.example.test:443'], deny: ['bad.example.test', 'registry.test'], declared: true,
    });
    expect(child.restrict({ readonly: true }).describe().network).toEqual(child.describe().network);
    expect(() => child.restrict({ network: { allow: ['registry.test'] } })).toThrow(PermissionEscalationError);
    expect(child.restrict({ network: false }).describe().network.mode).toBe('off');
  });

  test('under network: false, nothing but false', () => {
    const none = sandboxWith(false);
    expect(() => none.restrict({ network: { allow: ['registry.test'] } })).toThrow(PermissionEscalationError);
    expect(() => none.restrict({ network: true })).toThrow(PermissionEscalationError);
  });
});

describe('one exec call', () => {
  test('asking for more than the sandbox allows is refused before anything is made', async () => {
    const sandbox = sandboxWith({ allow: ['registry.test'] });
    const before = tmpEntries();
    await expect(sandbox.exec(['sh', '-c', 'touch made'], { network: true })).rejects.toThrow(PermissionEscalationError);
    await expect(sandbox.exec(['sh', '-c', 'touch made'], { network: { allow: ['evil.test'] } }))
      .rejects.toThrow(/evil\.test/);
    expect(fs.existsSync(path.join(base, 'made'))).toBe(false);
    expect(tmpEntries()).toEqual(before);
  });

  test.each([
    [{ network: { allow: ['*'] } }, /every host/],
    [{ network: { allow: 'registry.test' } }, /allow/],
    [{ grant: { network: ['*.com'] } }, /\.com/],
    [{ grant: { files: [] } }, /unknown key "files" in grant/],
    [{ onRequest: true }, /onRequest/],
  ])('%j is a TypeError', async (options, message) => {
    const sandbox = createMountSandbox({ root: base });
    await expect(sandbox.exec(['sh', '-c', 'touch made'], options)).rejects.toThrow(TypeError);
    await expect(sandbox.exec(['sh', '-c', 'touch made'], options)).rejects.toThrow(message);
    expect(fs.existsSync(path.join(base, 'made'))).toBe(false);
  });
});

describe('config files', () => {
  test('a program config\'s sandbox.network becomes the sandbox\'s', async () => {
    write(path.join(base, 'golem-forge.config.yaml'), [
      'sandbox:',
      '  root: .',
      '  network:',
      '    allow: [registry.test, "*.example.test:443"]',
      '    deny: [bad.example.test]',
      '',
    ].join('\n'));
    const config = await loadProgramConfig(path.join(base, 'golem-forge.config.yaml'));
    const sandbox = await createSandboxFromConfig(config);
    expect(sandbox.describe().network).toEqual({
      mode: 'filtered', allow: ['registry.test', '*.example.test:443'], deny: ['bad.example.test'], declared: true,
    });
  });

  test('a bad entry is a ConfigFileError at its line', async () => {
    const text = ['sandbox:', '  root: .', '  network:', '    allow:', '      - registry.test', '      - "*.com"', ''].join('\n');
    const file = path.join(base, 'golem-forge.config.yaml');
    write(file, text);
    const error = await loadProgramConfig(file).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigFileError);
    expect(error.keyPath).toBe('sandbox.network.allow[1]');
    expect(error.line).toBe(lineOf(text, '"*.com"'));
    expect(error.message).toMatch(/\.com/);
  });

  test.each([
    [['  network: yes please'], /false, true, or a mapping/],
    [['  network:', '    deny: [a.test]'], /allow/],
    [['  network:', '    allow: [a.test]', '    block: [b.test]'], /unknown key|allowed: allow, deny/],
    [['  network:', '    allow: a.test'], /list/],
  ])('%j is refused with its place', async (lines, message) => {
    const file = path.join(base, 'golem-forge.config.yaml');
    write(file, ['sandbox:', '  root: .', ...lines, ''].join('\n'));
    const error = await loadProgramConfig(file).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigFileError);
    expect(error.message).toMatch(message);
  });

  async function worker(network) {
    const file = path.join(base, 'workers', 'w.worker');
    write(file, ['---', 'name: fetcher', 'sandbox:', '  restrict: /', ...network, '---', 'Fetch.', ''].join('\n'));
    return loadWorkerFile(file);
  }

  test('a worker narrows its parent\'s network and may not widen it', async () => {
    const parent = sandboxWith({ allow: ['registry.test', '*.example.test'] });
    const narrow = sandboxForWorker(parent, await worker(['  network:', '    allow: [registry.test:443]']));
    expect(narrow.describe().network).toMatchObject({ mode: 'filtered', allow: ['registry.test:443'] });
    const off = sandboxForWorker(parent, await worker(['  network: false']));
    expect(off.describe().network.mode).toBe('off');
    const inherit = sandboxForWorker(parent, await worker([]));
    expect(inherit.describe().network).toEqual(parent.describe().network);
    for (const wide of [['  network: true'], ['  network:', '    allow: [evil.test]']]) {
      const declared = await worker(wide);
      let refused = null;
      try {
        sandboxForWorker(parent, declared);
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(PermissionEscalationError);
      expect(refused.message).toMatch(/Worker 'fetcher' asks for more network than its parent has/);
      expect(refused.worker).toBe('fetcher');
    }
  });
});

describe('the CLI', () => {
  const run = (args) => {
    try {
      return { code: 0, out: execFileSync(process.execPath, [CLI, ...args], { cwd: base, encoding: 'utf8', stdio: 'pipe' }) };
    } catch (error) {
      return { code: error.status, out: `${error.stdout}${error.stderr}` };
    }
  };

  beforeEach(() => write(path.join(base, 'golem-forge.config.yaml'), 'sandbox:\n  root: .\n'));

  test.each([
    [['--allow', '*'], /--allow \*/],
    [['--network', '--allow', 'a.test'], /either --network or --allow/],
    [['--deny', 'a.test'], /--deny narrows an allowlist/],
    [['--allow', '--verbose'], /--allow needs a host/],
  ])('exec %j is a usage error', (options, message) => {
    const { code, out } = run(['exec', ...options, '--', 'true']);
    expect(code).toBe(2);
    expect(out).toMatch(message);
  });
});
