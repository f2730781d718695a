'use strict';

// Program configuration files (golem-forge.config.yaml / .yml / .json): finding them, and the
// sandboxes they describe, on real directories.
const fs = require('fs');
const path = require('path');
const {
  CONFIG_FILE_NAMES, loadProgramConfig, findProgramConfig, createSandboxFromConfig, ConfigFileError,
  SandboxConfigError, ReadOnlyError, OutsideSandboxError, OperationBlockedError,
} = require('../lib');
const { RESOLVERS, tempDirEach, write } = require('./helpers');

let base;
tempDirEach('msb-config-', (dir) => {
  base = dir;
});

describe('findProgramConfig', () => {
  test('the file names, in the order they are looked for', () => {
    expect(CONFIG_FILE_NAMES).toEqual(['golem-forge.config.yaml', 'golem-forge.config.yml', 'golem-forge.config.json']);
  });

  test.each([
    ['golem-forge.config.yaml', 'sandbox:\n  root: work\n'],
    ['golem-forge.config.yml', 'sandbox:\n  root: work\n'],
    ['golem-forge.config.json', '{ "sandbox": { "root": "work" } }'],
  ])('walks up from a nested directory to %s', async (name, text) => {
    const project = path.join(base, 'project');
    const nested = path.join(project, 'a', 'b', 'c');
    fs.mkdirSync(nested, { recursive: true });
    write(path.join(project, name), text);
    const config = await findProgramConfig(nested);
    expect(config.file).toBe(path.join(project, name));
    expect(config.dir).toBe(project);
    // Relative to the config file, not to the start directory or the process's cwd.
    expect(config.sandbox.root).toBe(path.join(project, 'work'));
  });

  test('the nearest config wins over one further up', async () => {
    write(path.join(base, 'golem-forge.config.yaml'), 'sandbox:\n  root: outer\n');
    write(path.join(base, 'inner', 'golem-forge.config.json'), '{"sandbox": {"root": "inner-root"}}');
    fs.mkdirSync(path.join(base, 'inner', 'deep'), { recursive: true });
    const config = await findProgramConfig(path.join(base, 'inner', 'deep'));
    expect(config.file).toBe(path.join(base, 'inner', 'golem-forge.config.json'));
    expect(config.sandbox.root).toBe(path.join(base, 'inner', 'inner-root'));
    const outer = await findProgramConfig(base);
    expect(outer.sandbox.root).toBe(path.join(base, 'outer'));
  });

  test('a directory holding more than one config name is refused, naming them (issue 11)', async () => {
    write(path.join(base, 'golem-forge.config.json'), '{"sandbox": {"root": "from-json"}}');
    expect((await findProgramConfig(base)).sandbox.root).toBe(path.join(base, 'from-json'));
    write(path.join(base, 'golem-forge.config.yml'), 'sandbox: {root: from-yml}\n');
    const two = await findProgramConfig(base).catch((e) => e);
    expect(two).toBeInstanceOf(SandboxConfigError);
    expect(two.code).toBe('UNTRUSTED_CONFIG');
    expect(two.names).toEqual(['golem-forge.config.yml', 'golem-forge.config.json']);
    write(path.join(base, 'golem-forge.config.yaml'), 'sandbox: {root: from-yaml}\n');
    const three = await findProgramConfig(base).catch((e) => e);
    expect(three.names).toEqual(CONFIG_FILE_NAMES);
    expect(three.message).toMatch(/Keep one/);
  });

  test('a directory with a config file name is not a config', async () => {
    fs.mkdirSync(path.join(base, 'sub', 'golem-forge.config.yaml'), { recursive: true });
    write(path.join(base, 'golem-forge.config.yml'), 'sandbox: {root: real}\n');
    const config = await findProgramConfig(path.join(base, 'sub'));
    expect(config.file).toBe(path.join(base, 'golem-forge.config.yml'));
  });

  test('null when no directory up to "/" has a config', async () => {
    // Precondition: nothing above the temp dir has one (a config there would be found).
    for (let dir = base; ; dir = path.dirname(dir)) {
      for (const name of CONFIG_FILE_NAMES) {
        if (fs.existsSync(path.join(dir, name))) throw new Error(`unexpected config ${path.join(dir, name)}`);
      }
      if (path.dirname(dir) === dir) break;
    }
    const nested = path.join(base, 'x', 'y');
    fs.mkdirSync(nested, { recursive: true });
    expect(await findProgramConfig(nested)).toBeNull();
  });

  test('a config that does not validate throws instead of being skipped', async () => {
    write(path.join(base, 'golem-forge.config.yaml'), 'sandbox: {root: good}\n');
    write(path.join(base, 'inner', 'golem-forge.config.yaml'), 'sandbox:\n  rooot: x\n');
    const error = await findProgramConfig(path.join(base, 'inner')).catch((e) => e);
    expect(error).toBeInstanceOf(ConfigFileError);
    expect(error.file).toBe(path.join(base, 'inner', 'golem-forge.config.yaml'));
    expect(error.keyPath).toBe('sandbox.rooot');
  });

  test('loadProgramConfig resolves a relative file name against the cwd', async () => {
    write(path.join(base, 'golem-forge.config.yaml'), 'sandbox: {}\n');
    const cwd = process.cwd();
    process.chdir(base);
    try {
      const config = await loadProgramConfig('golem-forge.config.yaml');
      expect(config.file).toBe(path.join(base, 'golem-forge.config.yaml'));
      expect(config.sandbox.root).toBe(base);
    } finally {
      process.chdir(cwd);
    }
  });
});

describe.each(RESOLVERS)('sandboxes from config files (%s resolver)', (resolver) => {
  let saved;
  beforeAll(() => {
    saved = process.env.MOUNT_SANDBOX_RESOLVER;
    process.env.MOUNT_SANDBOX_RESOLVER = resolver;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.MOUNT_SANDBOX_RESOLVER;
    else process.env.MOUNT_SANDBOX_RESOLVER = saved;
  });

  async function sandboxFor(text, name = 'golem-forge.config.yaml') {
    const project = path.join(base, 'proj');
    write(path.join(project, name), text);
    const config = await findProgramConfig(path.join(project));
    return { project, config, sandbox: await createSandboxFromConfig(config) };
  }

  function expectNoHostPath(error) {
    expect(error.message).not.toContain(base);
    expect(error.toLLMMessage()).not.toContain(base);
  }

  test('the mount form: a writable root, a read-only mount, approvals and delegation depth', async () => {
    write(path.join(base, 'proj', 'cache', 'c.json'), '{"cached": true}');
    const { project, sandbox } = await sandboxFor([
      'sandbox:',
      '  root: project',
      '  approval: {write: preApproved, delete: blocked}',
      '  mounts:',
      '    - source: cache',
      '      target: /cache',
      '      readonly: true',
      'delegation: {maxDepth: 3}',
    ].join('\n'));
    // createSandboxFromConfig creates the missing root.
    expect(fs.statSync(path.join(project, 'project')).isDirectory()).toBe(true);
    await sandbox.write('/src/app.ts', 'export {};\n');
    expect(fs.readFileSync(path.join(project, 'project', 'src', 'app.ts'), 'utf8')).toBe('export {};\n');
    expect(await sandbox.read('/src/app.ts')).toBe('export {};\n');
    expect(await sandbox.read('/cache/c.json')).toBe('{"cached": true}');
    expect(await sandbox.list('/')).toEqual(['cache', 'src']);

    const refused = await sandbox.write('/cache/new.json', '{}').catch((e) => e);
    expect(refused).toBeInstanceOf(ReadOnlyError);
    expect(refused.writablePaths).toEqual(['/']);
    expectNoHostPath(refused);
    expect(fs.existsSync(path.join(project, 'cache', 'new.json'))).toBe(false);

    expect(sandbox.approvalFor('/src/app.ts', 'write')).toBe('preApproved');
    expect(sandbox.approvalFor('/src/app.ts', 'delete')).toBe('blocked');
    const blocked = await sandbox.delete('/src/app.ts').catch((e) => e);
    expect(blocked).toBeInstanceOf(OperationBlockedError);
    expect(fs.existsSync(path.join(project, 'project', 'src', 'app.ts'))).toBe(true);

    expect(sandbox.describe().maxDepth).toBe(3);
    expect(sandbox.depth).toBe(0);
  });

  test('the JSON mount form behaves the same', async () => {
    const { project, sandbox } = await sandboxFor(
      JSON.stringify({ sandbox: { root: 'r', readonly: true, mounts: [{ source: 'w', target: '/w' }] } }),
      'golem-forge.config.json',
    );
    await sandbox.write('/w/a.txt', 'A');
    expect(fs.readFileSync(path.join(project, 'w', 'a.txt'), 'utf8')).toBe('A');
    const refused = await sandbox.write('/a.txt', 'A').catch((e) => e);
    expect(refused).toBeInstanceOf(ReadOnlyError);
    expect(refused.writablePaths).toEqual(['/w']);
    expect(refused.toLLMMessage()).toContain('/w');
    expectNoHostPath(refused);
  });

  test('the zone form, sandboxed: zones under .sandbox, "/" lists exactly the zones', async () => {
    write(path.join(base, 'proj', 'secret.txt'), 'not in any zone');
    write(path.join(base, 'proj', '.sandbox', 'refs', 'guide.md'), '# guide');
    const { project, sandbox } = await sandboxFor([
      'sandbox:',
      '  zones:',
      '    workspace: {path: workspace, mode: rw}',
      '    refs: {path: refs, mode: ro}',
      '    data:',
      '      path: data',
    ].join('\n'));
    expect(await sandbox.list('/')).toEqual(['data', 'refs', 'workspace']);
    expect(sandbox.zones().sort()).toEqual(['data', 'refs', 'workspace']);
    expect(sandbox.readablePaths()).toEqual(['/data', '/refs', '/workspace']);

    await sandbox.write('/workspace/notes.txt', 'n');
    await sandbox.write('/data/d/x.json', '1');
    expect(fs.readFileSync(path.join(project, '.sandbox', 'workspace', 'notes.txt'), 'utf8')).toBe('n');
    expect(fs.readFileSync(path.join(project, '.sandbox', 'data', 'd', 'x.json'), 'utf8')).toBe('1');
    expect(await sandbox.read('/refs/guide.md')).toBe('# guide');

    // The config file's directory is not reachable: the zones are all there is.
    for (const p of ['/secret.txt', '/golem-forge.config.yaml', '/.sandbox/data/d/x.json']) {
      const outside = await sandbox.read(p).catch((e) => e);
      expect(outside).toBeInstanceOf(OutsideSandboxError);
      expect(outside.code).toBe('OUTSIDE_SANDBOX');
      expect(outside.readablePaths).toEqual(['/data', '/refs', '/workspace']);
      expect(outside.toLLMMessage()).toContain('/data, /refs, /workspace');
      expectNoHostPath(outside);
    }
    const writeOutside = await sandbox.write('/new.txt', 'x').catch((e) => e);
    expect(writeOutside).toBeInstanceOf(OutsideSandboxError);
    expect(fs.existsSync(path.join(project, 'new.txt'))).toBe(false);
    expect(fs.existsSync(path.join(project, '.sandbox', 'new.txt'))).toBe(false);

    const readOnly = await sandbox.write('/refs/guide.md', 'changed').catch((e) => e);
    expect(readOnly).toBeInstanceOf(ReadOnlyError);
    expect(readOnly.writablePaths).toEqual(['/data', '/workspace']);
    expect(readOnly.toLLMMessage()).toContain('/data, /workspace');
    expectNoHostPath(readOnly);
    expect(fs.readFileSync(path.join(project, '.sandbox', 'refs', 'guide.md'), 'utf8')).toBe('# guide');
    await expect(sandbox.delete('/refs/guide.md')).rejects.toBeInstanceOf(ReadOnlyError);
  });

  test('the zone form, direct: zones are directories next to the config file', async () => {
    write(path.join(base, 'proj', 'docs', 'spec.md'), 'spec');
    write(path.join(base, 'proj', 'private.txt'), 'private');
    const { project, sandbox } = await sandboxFor(
      'sandbox:\n  mode: direct\n  zones:\n    docs: {path: docs, mode: ro}\n    out: {path: build/out}\n',
    );
    expect(await sandbox.list('/')).toEqual(['docs', 'out']);
    expect(await sandbox.read('/docs/spec.md')).toBe('spec');
    await sandbox.write('/out/result.txt', 'r');
    expect(fs.readFileSync(path.join(project, 'build', 'out', 'result.txt'), 'utf8')).toBe('r');
    const outside = await sandbox.read('/private.txt').catch((e) => e);
    expect(outside).toBeInstanceOf(OutsideSandboxError);
    expect(outside.toLLMMessage()).toContain('/docs, /out');
    expectNoHostPath(outside);
    const readOnly = await sandbox.write('/docs/spec.md', 'x').catch((e) => e);
    expect(readOnly).toBeInstanceOf(ReadOnlyError);
    expect(readOnly.writablePaths).toEqual(['/out']);
    expect(fs.readFileSync(path.join(project, 'docs', 'spec.md'), 'utf8')).toBe('spec');
  });

  test('suffix and size rules from the config are enforced', async () => {
    const { sandbox } = await sandboxFor(
      'sandbox:\n  deniedSuffixes: [".pem"]\n  mounts:\n    - {source: small, target: /small, maxFileBytes: 4}\n',
    );
    await expect(sandbox.write('/key.pem', 'k')).rejects.toMatchObject({ code: 'SUFFIX_NOT_ALLOWED' });
    await sandbox.write('/small/ok.txt', '1234');
    await expect(sandbox.write('/small/big.txt', '12345')).rejects.toMatchObject({ code: 'TOO_LARGE' });
  });
});
