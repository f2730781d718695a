'use strict';

// Program configuration files (golem-forge.config.yaml / .yml / .json): finding them, the model
// they load into, the sandboxes they describe (on real directories), and the exact place every
// kind of mistake is reported at.
const fs = require('fs');
const path = require('path');
const {
  CONFIG_FILE_NAMES,
  parseProgramConfig,
  loadProgramConfig,
  findProgramConfig,
  sandboxConfigFrom,
  createSandboxFromConfig,
  ConfigFileError,
  SandboxConfigError,
  ReadOnlyError,
  OutsideSandboxError,
  OperationBlockedError,
} = require('../lib');
const { RESOLVERS, tempDirEach, textBefore, write } = require('./helpers');

let base;
tempDirEach('msb-config-', (dir) => {
  base = dir;
});

// The error a parse throws (failing the test when it does not throw).
function parseError(text, format, file = path.join(base, `golem-forge.config.${format}`)) {
  let result;
  try {
    result = parseProgramConfig(text, { file, format });
  } catch (error) {
    return error;
  }
  throw new Error(`expected a ConfigFileError, got a config: ${JSON.stringify(result)}`);
}

function expectConfigError(text, format, { keyPath, line, column }) {
  const file = path.join(base, `golem-forge.config.${format}`);
  const error = parseError(text, format, file);
  expect(error).toBeInstanceOf(ConfigFileError);
  expect(error).toBeInstanceOf(SandboxConfigError);
  expect(error.code).toBe('INVALID_CONFIG');
  expect(error.file).toBe(file);
  expect({ keyPath: error.keyPath, line: error.line, column: error.column }).toEqual({ keyPath, line, column });
  expect(typeof error.expected).toBe('string');
  expect(error.expected.length).toBeGreaterThan(0);
  // The message is what a person reads in a terminal: file:line:column, the key, the expectation.
  expect(error.message).toContain(`${file}:${line}:${column}`);
  if (keyPath) expect(error.message).toContain(keyPath);
  expect(error.message).toContain(error.expected);
  return error;
}

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

describe('the model', () => {
  const file = () => path.join(base, 'proj', 'golem-forge.config.yaml');

  test('relative paths resolve against the config file\'s directory, and the root defaults to it', () => {
    const config = parseProgramConfig(
      ['sandbox:', '  mounts:', '    - source: ../shared', '      target: /shared', '    - source: /abs/olute', '      target: /abs'].join('\n'),
      { file: file() },
    );
    expect(config.file).toBe(file());
    expect(config.dir).toBe(path.join(base, 'proj'));
    expect(config.sandbox.root).toBe(path.join(base, 'proj'));
    expect(config.sandbox.mounts.map((m) => [m.target, m.source])).toEqual([
      ['/shared', path.join(base, 'shared')],
      ['/abs', '/abs/olute'],
    ]);
  });

  test('a relative file name is taken relative to the cwd, and relative paths follow it', () => {
    const config = parseProgramConfig('sandbox: {root: r}\n', { file: 'some/dir/golem-forge.config.yaml' });
    expect(config.file).toBe(path.resolve('some/dir/golem-forge.config.yaml'));
    expect(config.sandbox.root).toBe(path.resolve('some/dir/r'));
  });

  test('the mount form with every key', () => {
    const config = parseProgramConfig(
      [
        'model: anthropic:claude-sonnet-4',
        'approval:',
        '  mode: interactive',
        'workerPaths: [workers, more-workers]',
        'sandbox:',
        '  root: project',
        '  readonly: false',
        '  approval:',
        '    write: preApproved',
        '    delete: blocked',
        '  deniedSuffixes: [".key", ".PEM"]',
        '  maxFileBytes: 2048',
        '  mounts:',
        '    - source: cache',
        '      target: /cache',
        '      readonly: true',
        '      allowedSuffixes: [".json"]',
        '      maxFileBytes: 100',
        '    - source: out',
        '      target: /out',
        '      approval: {write: ask}',
        'delegation:',
        '  maxDepth: 3',
      ].join('\n'),
      { file: file() },
    );
    const proj = path.join(base, 'proj');
    expect(config).toEqual({
      file: file(),
      dir: proj,
      delegation: { maxDepth: 3 },
      workerPaths: [path.join(proj, 'workers'), path.join(proj, 'more-workers')],
      sandbox: {
        layout: 'mounts',
        root: path.join(proj, 'project'),
        readonly: false,
        approval: { write: 'preApproved', delete: 'blocked' },
        policy: { allowedSuffixes: null, deniedSuffixes: ['.key', '.pem'], maxFileBytes: 2048 },
        mounts: [
          {
            source: path.join(proj, 'cache'),
            target: '/cache',
            readonly: true,
            approval: { write: 'ask', delete: 'ask' },
            policy: { allowedSuffixes: ['.json'], deniedSuffixes: [], maxFileBytes: 100 },
          },
          {
            source: path.join(proj, 'out'),
            target: '/out',
            readonly: false,
            approval: { write: 'ask', delete: 'ask' },
            policy: { allowedSuffixes: null, deniedSuffixes: [], maxFileBytes: null },
          },
        ],
      },
    });
  });

  test('defaults: maxDepth 5, approvals ask, writable root', () => {
    const config = parseProgramConfig('sandbox: {}\n', { file: file() });
    expect(config.delegation).toEqual({ maxDepth: 5 });
    expect(config.sandbox).toEqual({
      layout: 'mounts',
      root: path.join(base, 'proj'),
      readonly: false,
      approval: { write: 'ask', delete: 'ask' },
      policy: { allowedSuffixes: null, deniedSuffixes: [], maxFileBytes: null },
      mounts: [],
    });
  });

  test('the zone form, sandboxed (the default mode): zone paths under root, default ".sandbox"', () => {
    const config = parseProgramConfig(
      ['sandbox:', '  zones:', '    data: {path: data, mode: rw}', '    refs:', '      path: lib/refs', '      mode: ro'].join('\n'),
      { file: file() },
    );
    const under = path.join(base, 'proj', '.sandbox');
    expect(config.sandbox.layout).toBe('sandboxed');
    expect(config.sandbox.root).toBeNull();
    expect(config.sandbox.mounts.map(({ zone, target, source, readonly }) => ({ zone, target, source, readonly }))).toEqual([
      { zone: 'data', target: '/data', source: path.join(under, 'data'), readonly: false },
      { zone: 'refs', target: '/refs', source: path.join(under, 'lib', 'refs'), readonly: true },
    ]);
    const cfg = parseProgramConfig(
      'sandbox:\n  mode: sandboxed\n  root: box\n  zones:\n    data: {path: d}\n',
      { file: file() },
    );
    expect(cfg.sandbox.mounts.map((m) => [m.zone, m.source, m.readonly])).toEqual([
      ['data', path.join(base, 'proj', 'box', 'd'), false],
    ]);
  });

  test('the zone form, direct mode: zone paths relative to the config file', () => {
    const config = parseProgramConfig(
      'sandbox:\n  mode: direct\n  zones:\n    workspace: {path: ., mode: rw}\n    up: {path: ../elsewhere, mode: ro}\n',
      { file: file() },
    );
    expect(config.sandbox.layout).toBe('direct');
    expect(config.sandbox.root).toBeNull();
    expect(config.sandbox.mounts.map((m) => [m.zone, m.target, m.source, m.readonly])).toEqual([
      ['workspace', '/workspace', path.join(base, 'proj'), false],
      ['up', '/up', path.join(base, 'elsewhere'), true],
    ]);
  });

  test('a zone with no settings is read-write at <root>/<name>', () => {
    const config = parseProgramConfig('sandbox:\n  zones:\n    scratch:\n    data: {}\n', { file: file() });
    expect(config.sandbox.mounts.map((m) => [m.zone, m.source, m.readonly])).toEqual([
      ['scratch', path.join(base, 'proj', '.sandbox', 'scratch'), false],
      ['data', path.join(base, 'proj', '.sandbox', 'data'), false],
    ]);
    const ro = parseProgramConfig('sandbox:\n  readonly: true\n  zones:\n    a: {mode: rw}\n', { file: file() });
    expect(ro.sandbox.mounts[0].readonly).toBe(true);
  });

  test('zone approvals and policies', () => {
    const config = parseProgramConfig(
      'sandbox:\n  zones:\n    notes:\n      path: notes\n      approval: {write: preApproved, delete: blocked}\n' +
        '      allowedSuffixes: [".MD"]\n      deniedSuffixes: [".tmp"]\n      maxFileBytes: 0x400\n',
      { file: file() },
    );
    const [notes] = config.sandbox.mounts;
    expect(notes.approval).toEqual({ write: 'preApproved', delete: 'blocked' });
    expect(notes.policy).toEqual({ allowedSuffixes: ['.md'], deniedSuffixes: ['.tmp'], maxFileBytes: 1024 });
  });

  test('no sandbox section: sandbox null, and no sandbox is built', async () => {
    const config = parseProgramConfig('model: openai:gpt-4o\ndelegation:\n  maxDepth: 2\n', { file: file() });
    expect(config.sandbox).toBeNull();
    expect(config.delegation).toEqual({ maxDepth: 2 });
    expect(sandboxConfigFrom(config)).toBeNull();
    expect(await createSandboxFromConfig(config)).toBeNull();
  });

  test.each([
    ['empty', ''],
    ['only a comment', '# nothing configured yet\n'],
    ['only whitespace', '\n   \n\n'],
  ])('an empty YAML file (%s) means no sandbox', async (_, text) => {
    const config = parseProgramConfig(text, { file: file() });
    expect(config.sandbox).toBeNull();
    expect(config.delegation).toEqual({ maxDepth: 5 });
    expect(await createSandboxFromConfig(config)).toBeNull();
  });

  test('an empty JSON object means no sandbox', async () => {
    const config = parseProgramConfig('{}', { file: path.join(base, 'golem-forge.config.json') });
    expect(config.sandbox).toBeNull();
    expect(await createSandboxFromConfig(config)).toBeNull();
  });

  test('the format follows the file extension unless given', () => {
    const json = '{"sandbox": {"root": "r"}}';
    expect(parseProgramConfig(json, { file: path.join(base, 'golem-forge.config.json') }).sandbox.root).toBe(path.join(base, 'r'));
    // JSON is YAML too, but "format: json" must apply JSON's rules: a YAML-only document fails.
    expect(() => parseProgramConfig('sandbox:\n  root: r\n', { file: path.join(base, 'x.yaml'), format: 'json' })).toThrow(ConfigFileError);
    expect(() => parseProgramConfig('sandbox:\n  root: r\n', { file: path.join(base, 'golem-forge.config.json') })).toThrow(ConfigFileError);
    expect(parseProgramConfig('sandbox:\n  root: r\n', { file: path.join(base, 'x.json'), format: 'yaml' }).sandbox.root).toBe(path.join(base, 'r'));
  });

  test('the same config in YAML and JSON gives the same model', () => {
    const yaml = [
      'model: anthropic:claude-sonnet-4',
      'approval: {mode: approve_all}',
      'workerPaths: [workers]',
      'sandbox:',
      '  root: project',
      '  readonly: true',
      '  approval: {write: blocked}',
      '  allowedSuffixes: [".ts", ".md"]',
      '  mounts:',
      '    - {source: ../cache, target: /cache, readonly: true, maxFileBytes: 10}',
      '    - source: out',
      '      target: /out/deep',
      '      approval: {delete: preApproved}',
      '      deniedSuffixes: [".exe"]',
      'delegation: {maxDepth: 7}',
    ].join('\n');
    const json = JSON.stringify({
      model: 'anthropic:claude-sonnet-4',
      approval: { mode: 'approve_all' },
      workerPaths: ['workers'],
      sandbox: {
        root: 'project',
        readonly: true,
        approval: { write: 'blocked' },
        allowedSuffixes: ['.ts', '.md'],
        mounts: [
          { source: '../cache', target: '/cache', readonly: true, maxFileBytes: 10 },
          { source: 'out', target: '/out/deep', approval: { delete: 'preApproved' }, deniedSuffixes: ['.exe'] },
        ],
      },
      delegation: { maxDepth: 7 },
    }, null, 2);
    const fromYaml = parseProgramConfig(yaml, { file: path.join(base, 'golem-forge.config.yaml') });
    const fromJson = parseProgramConfig(json, { file: path.join(base, 'golem-forge.config.json') });
    expect(fromYaml.file).not.toBe(fromJson.file);
    const { file: _y, ...restYaml } = fromYaml;
    const { file: _j, ...restJson } = fromJson;
    expect(restJson).toEqual(restYaml);
    expect(restYaml.sandbox.mounts[1].approval).toEqual({ write: 'ask', delete: 'preApproved' });
    expect(restYaml.delegation.maxDepth).toBe(7);

    const zonesYaml = 'sandbox:\n  mode: direct\n  zones:\n    a: {path: x, mode: ro}\n    b: {path: y, approval: {write: preApproved}}\n';
    const zonesJson = '{"sandbox": {"mode": "direct", "zones": {"a": {"path": "x", "mode": "ro"}, "b": {"path": "y", "approval": {"write": "preApproved"}}}}}';
    const zy = parseProgramConfig(zonesYaml, { file: path.join(base, 'golem-forge.config.yml') });
    const zj = parseProgramConfig(zonesJson, { file: path.join(base, 'golem-forge.config.json') });
    expect(zj.sandbox).toEqual(zy.sandbox);
    expect(zy.sandbox.mounts.map((m) => m.zone)).toEqual(['a', 'b']);
  });

  test('sandboxConfigFrom gives createMountSandbox\'s config', () => {
    const config = parseProgramConfig(
      'sandbox:\n  root: r\n  approval: {write: preApproved}\n  mounts:\n    - {source: c, target: /c, readonly: true, allowedSuffixes: [".json"]}\ndelegation: {maxDepth: 2}\n',
      { file: path.join(base, 'golem-forge.config.yaml') },
    );
    expect(sandboxConfigFrom(config)).toEqual({
      root: path.join(base, 'r'),
      readonly: false,
      approval: { write: 'preApproved', delete: 'ask' },
      mounts: [{
        source: path.join(base, 'c'),
        target: '/c',
        readonly: true,
        approval: { write: 'ask', delete: 'ask' },
        allowedSuffixes: ['.json'],
      }],
      maxDepth: 2,
    });
    expect(() => sandboxConfigFrom({})).toThrow(TypeError);
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

// Every mistake, in both formats, reported at its exact place. Lines and columns are 1-based;
// a wrong value is reported where the value is written, an unknown or repeated key where that
// key is written (its quote, in JSON). `at(text, needle, n)` is the place of the n-th
// occurrence of needle, so each expectation names what it points at.
function at(text, needle, n = 1) {
  const before = textBefore(text, needle, n);
  const line = before.split('\n').length;
  const column = Buffer.byteLength(before.slice(before.lastIndexOf('\n') + 1)) + 1;
  return { line, column };
}

// The expected error at `needle` (its n-th occurrence).
function expectErrorAt(text, format, keyPath, needle, n = 1) {
  return expectConfigError(text, format, { keyPath, ...at(text, needle, n) });
}

describe('malformed configs', () => {
  test('at() counts as the parser does (self-check)', () => {
    expect(at('ab\ncd: x', 'x')).toEqual({ line: 2, column: 5 });
    expect(at('a a', 'a', 2)).toEqual({ line: 1, column: 3 });
  });

  describe('wrong types', () => {
    test('readonly: "yes" as a quoted string', () => {
      const y = expectErrorAt('sandbox:\n  readonly: "yes"\n', 'yaml', 'sandbox.readonly', '"yes"');
      expect(y.expected).toMatch(/boolean/);
      const j = expectErrorAt('{\n  "sandbox": {\n    "readonly": "yes"\n  }\n}', 'json', 'sandbox.readonly', '"yes"');
      expect(j.expected).toBe(y.expected);
    });

    test('readonly: 1 and readonly: yes (a YAML 1.1 boolean is a string in YAML 1.2)', () => {
      expectErrorAt('sandbox:\n  readonly: 1\n', 'yaml', 'sandbox.readonly', '1');
      expectErrorAt('sandbox:\n  readonly: yes\n', 'yaml', 'sandbox.readonly', 'yes');
      expectErrorAt('{"sandbox": {"readonly": 1}}', 'json', 'sandbox.readonly', '1');
    });

    test('a mount\'s readonly as a quoted string', () => {
      expectErrorAt(
        'sandbox:\n  mounts:\n    - source: a\n      target: /a\n    - source: b\n      target: /b\n      readonly: "true"\n',
        'yaml', 'sandbox.mounts[1].readonly', '"true"',
      );
      expectErrorAt(
        '{"sandbox": {"mounts": [\n  {"source": "a", "target": "/a"},\n  {"source": "b", "target": "/b", "readonly": "true"}\n]}}',
        'json', 'sandbox.mounts[1].readonly', '"true"',
      );
    });

    test('maxDepth: -1', () => {
      const y = expectErrorAt('delegation:\n  maxDepth: -1\n', 'yaml', 'delegation.maxDepth', '-1');
      expect(y.expected).toMatch(/integer/);
      expectErrorAt('{"delegation": {"maxDepth": -1}}', 'json', 'delegation.maxDepth', '-1');
    });

    test('maxDepth as a string, a fraction, or too large', () => {
      expectErrorAt('delegation:\n  maxDepth: "3"\n', 'yaml', 'delegation.maxDepth', '"3"');
      expectErrorAt('{"delegation": {"maxDepth": 1.5}}', 'json', 'delegation.maxDepth', '1.5');
      expectErrorAt('{"delegation": {"maxDepth": 99999999999999999999999}}', 'json', 'delegation.maxDepth', '9');
    });

    test('maxFileBytes negative or as a string', () => {
      expectErrorAt('sandbox:\n  maxFileBytes: -5\n', 'yaml', 'sandbox.maxFileBytes', '-5');
      expectErrorAt('{"sandbox": {"mounts": [{"source": "a", "target": "/a", "maxFileBytes": "10"}]}}', 'json',
        'sandbox.mounts[0].maxFileBytes', '"10"');
    });

    test('suffix lists: not a list, an entry without the leading dot', () => {
      expectErrorAt('sandbox:\n  allowedSuffixes: .md\n', 'yaml', 'sandbox.allowedSuffixes', '.md');
      expectErrorAt('sandbox:\n  deniedSuffixes: [".pem", "key"]\n', 'yaml', 'sandbox.deniedSuffixes[1]', '"key"');
      expectErrorAt('{"sandbox": {"deniedSuffixes": [".pem", "key"]}}', 'json', 'sandbox.deniedSuffixes[1]', '"key"');
    });

    test('mounts that are not a list, a mount that is not a map, a target that is not a string', () => {
      expectErrorAt('sandbox:\n  mounts: /data\n', 'yaml', 'sandbox.mounts', '/data');
      expectErrorAt('sandbox:\n  mounts:\n    - /data\n', 'yaml', 'sandbox.mounts[0]', '/data');
      expectErrorAt('{"sandbox": {"mounts": [{"source": "a", "target": 5}]}}', 'json', 'sandbox.mounts[0].target', '5');
    });

    test('sandbox that is not a map', () => {
      expectErrorAt('sandbox: yes\n', 'yaml', 'sandbox', 'yes');
      expectErrorAt('{"sandbox": [1]}', 'json', 'sandbox', '[');
    });

    test('sandbox: false, null or empty is an error (only leaving the section out means none)', () => {
      expectErrorAt('sandbox: false\n', 'yaml', 'sandbox', 'false');
      expectErrorAt('{"sandbox": true}', 'json', 'sandbox', 'true');
      expectErrorAt('{"sandbox": null}', 'json', 'sandbox', 'null');
      // An empty value has no place of its own: its key is reported.
      expectErrorAt('model: x\nsandbox:\n', 'yaml', 'sandbox', 'sandbox');
    });

    test('an explicit YAML null is reported where it is written, as in JSON', () => {
      expectErrorAt('sandbox:   ~\n', 'yaml', 'sandbox', '~');
      expectErrorAt('sandbox:\n  readonly: null\n', 'yaml', 'sandbox.readonly', 'null');
      expectErrorAt('{"sandbox": {"readonly": null}}', 'json', 'sandbox.readonly', 'null');
    });

    test('workerPaths that are not a list of strings, model that is not a string', () => {
      expectErrorAt('workerPaths: [a, [b]]\n', 'yaml', 'workerPaths[1]', '[b]');
      expectErrorAt('{"model": 4}', 'json', 'model', '4');
    });

    test('a top level that is not a map', () => {
      expectErrorAt('- sandbox\n', 'yaml', '', '-');
      expectErrorAt('[]', 'json', '', '[');
    });
  });

  describe('unknown keys', () => {
    test('at the top level', () => {
      expectErrorAt('sandbox: {}\nsandbx:\n  root: x\n', 'yaml', 'sandbx', 'sandbx');
      expectErrorAt('{\n  "sandbox": {},\n  "sandbx": {}\n}', 'json', 'sandbx', '"sandbx"');
    });

    test('inside sandbox (a misspelt readOnly must not leave things writable)', () => {
      expectErrorAt('sandbox:\n  readOnly: true\n', 'yaml', 'sandbox.readOnly', 'readOnly');
      expectErrorAt('{"sandbox": {"readOnly": true}}', 'json', 'sandbox.readOnly', '"readOnly"');
    });

    test('inside a mount', () => {
      expectErrorAt('sandbox:\n  mounts:\n    - source: a\n      target: /a\n      readOnly: true\n', 'yaml',
        'sandbox.mounts[0].readOnly', 'readOnly');
      expectErrorAt('{"sandbox": {"mounts": [\n  {"source": "a", "target": "/a"},\n  {"source": "b", "target": "/b", "readOnly": true}\n]}}',
        'json', 'sandbox.mounts[1].readOnly', '"readOnly"');
    });

    test('inside approval', () => {
      expectErrorAt('sandbox:\n  approval:\n    write: ask\n    remove: blocked\n', 'yaml', 'sandbox.approval.remove', 'remove');
      expectErrorAt('{"sandbox": {"approval": {"write": "ask", "rm": "blocked"}}}', 'json', 'sandbox.approval.rm', '"rm"');
      expectErrorAt('sandbox:\n  mounts:\n    - source: a\n      target: /a\n      approval: {write: ask, read: ask}\n', 'yaml',
        'sandbox.mounts[0].approval.read', 'read');
      // golem-forge's own top-level approval takes only `mode`.
      expectErrorAt('approval:\n  mode: interactive\n  write: ask\n', 'yaml', 'approval.write', 'write');
    });

    test('inside a zone and inside delegation', () => {
      expectErrorAt('sandbox:\n  zones:\n    data:\n      path: d\n      readonly: true\n', 'yaml', 'sandbox.zones.data.readonly', 'readonly');
      expectErrorAt('{"delegation": {"maxDepth": 2, "depth": 3}}', 'json', 'delegation.depth', '"depth"');
    });

    test('zone-form keys in the mount form are not silently ignored', () => {
      expectErrorAt('sandbox:\n  mode: direct\n  mounts: []\n', 'yaml', 'sandbox.mode', 'mode');
    });
  });

  test('duplicate mount targets (the second is reported)', () => {
    const y = expectErrorAt('sandbox:\n  mounts:\n    - source: a\n      target: /data\n    - source: b\n      target: /data\n',
      'yaml', 'sandbox.mounts[1].target', '/data', 2);
    expect(y.expected).toContain('/data');
    // "/data/" is "/data".
    expectErrorAt('{"sandbox": {"mounts": [\n  {"source": "a", "target": "/data"},\n  {"source": "b", "target": "/data/"}\n]}}',
      'json', 'sandbox.mounts[1].target', '"/data/"');
  });

  test('bad targets and missing sources', () => {
    for (const target of ['data', '/a/../b', '/', '/a//b']) {
      const text = `sandbox:\n  mounts:\n    - {source: a, target: "${target}"}\n`;
      expectErrorAt(text, 'yaml', 'sandbox.mounts[0].target', `"${target}"`);
    }
    // A missing key is reported at the map that lacks it.
    expectErrorAt('sandbox:\n  mounts:\n    - {target: /a}\n', 'yaml', 'sandbox.mounts[0].source', '{');
    expectErrorAt('sandbox:\n  mounts:\n    - source: a\n      readonly: true\n', 'yaml', 'sandbox.mounts[0].target', 'source');
  });

  test('duplicate keys (the second is reported)', () => {
    expectErrorAt('sandbox:\n  root: a\n  root: b\n', 'yaml', 'sandbox.root', 'root', 2);
    expectErrorAt('sandbox: {}\nsandbox: {}\n', 'yaml', 'sandbox', 'sandbox', 2);
    expectErrorAt('{"sandbox": {"root": "a",\n "root": "b"}}', 'json', 'sandbox.root', '"root"', 2);
    expectErrorAt('sandbox:\n  mounts:\n    - {source: a, target: /a, source: b}\n', 'yaml', 'sandbox.mounts[0].source', 'source', 2);
  });

  describe('bad zones', () => {
    test('a zone name with a slash', () => {
      expectErrorAt('sandbox:\n  zones:\n    a/b: {path: x}\n', 'yaml', 'sandbox.zones.a/b', 'a/b');
      expectErrorAt('{"sandbox": {"zones": {"a/b": {"path": "x"}}}}', 'json', 'sandbox.zones.a/b', '"a/b"');
    });

    test('zone names "." and ".." and ""', () => {
      expectErrorAt('sandbox:\n  zones:\n    "..": {path: x}\n', 'yaml', 'sandbox.zones...', '".."');
      expectErrorAt('{"sandbox": {"zones": {"": {"path": "x"}}}}', 'json', 'sandbox.zones.', '""');
    });

    test('a bad mode', () => {
      const y = expectErrorAt('sandbox:\n  zones:\n    data: {path: d, mode: rwx}\n', 'yaml', 'sandbox.zones.data.mode', 'rwx');
      expect(y.expected).toContain('ro');
      expect(y.expected).toContain('rw');
      expectErrorAt('{"sandbox": {"zones": {"data": {"path": "d", "mode": "write"}}}}', 'json', 'sandbox.zones.data.mode', '"write"');
    });

    test('a bad sandbox mode', () => {
      const y = expectErrorAt('sandbox:\n  mode: chroot\n  zones:\n    data: {path: d}\n', 'yaml', 'sandbox.mode', 'chroot');
      expect(y.expected).toMatch(/sandboxed.*direct/);
    });

    test('a sandboxed zone path escaping the root', () => {
      expectErrorAt('sandbox:\n  zones:\n    data:\n      path: ../x\n', 'yaml', 'sandbox.zones.data.path', '../x');
      expectErrorAt('{"sandbox": {"zones": {"data": {"path": "../x"}}}}', 'json', 'sandbox.zones.data.path', '"../x"');
      expectErrorAt('sandbox:\n  zones:\n    data: {path: /etc}\n', 'yaml', 'sandbox.zones.data.path', '/etc');
      expectErrorAt('sandbox:\n  zones:\n    data: {path: a/../../x}\n', 'yaml', 'sandbox.zones.data.path', 'a/../../x');
    });

    test('zone-form keys that do not belong', () => {
      // Direct mode has no root: zone paths are relative to the config file.
      expectErrorAt('sandbox:\n  mode: direct\n  root: box\n  zones:\n    data: {path: d}\n', 'yaml', 'sandbox.root', 'root');
      // Policies go on each zone, not on the zone form's sandbox.
      expectErrorAt('sandbox:\n  zones:\n    data: {path: d}\n  approval: {write: ask}\n', 'yaml', 'sandbox.approval', 'approval');
      expectErrorAt('{"sandbox": {"zones": {"data": {"path": "d"}}, "readOnly": true}}', 'json', 'sandbox.readOnly', '"readOnly"');
      expectErrorAt('sandbox:\n  zones: [data, work]\n', 'yaml', 'sandbox.zones', '[');
    });

    // No zones at all must not get through the parser only to fail later, in
    // createSandboxFromConfig, with an error that names neither the file nor the key.
    test.each([
      ['yaml', 'sandbox:\n  zones: {}\n'],
      ['json', '{"sandbox": {"mode": "direct", "zones": {}}}'],
    ])('an empty zones map (%s) is refused at sandbox.zones', async (format, text) => {
      const error = await (async () => {
        const config = parseProgramConfig(text, { file: path.join(base, `golem-forge.config.${format}`) });
        return createSandboxFromConfig(config);
      })().then(() => null, (e) => e);
      expect(error).toBeInstanceOf(ConfigFileError);
      expect(error.keyPath).toBe('sandbox.zones');
      expect(error.line).toBeGreaterThan(0);
    });

    test('mounts and zones together (the second one written is reported)', () => {
      expectErrorAt('sandbox:\n  mounts:\n    - {source: a, target: /a}\n  zones:\n    data: {path: d}\n', 'yaml', 'sandbox.zones', 'zones');
      expectErrorAt('{"sandbox": {"zones": {"data": {"path": "d"}},\n"mounts": []}}', 'json', 'sandbox.mounts', '"mounts"');
    });
  });

  test('a bad approval value', () => {
    const y = expectErrorAt('sandbox:\n  approval:\n    write: always\n', 'yaml', 'sandbox.approval.write', 'always');
    expect(y.expected).toContain('preApproved');
    expect(y.expected).toContain('ask');
    expect(y.expected).toContain('blocked');
    expectErrorAt('{"sandbox": {"mounts": [{"source": "a", "target": "/a", "approval": {"delete": "no"}}]}}', 'json',
      'sandbox.mounts[0].approval.delete', '"no"');
    expectErrorAt('sandbox:\n  zones:\n    z:\n      path: z\n      approval: {write: PreApproved}\n', 'yaml',
      'sandbox.zones.z.approval.write', 'PreApproved');
    expectErrorAt('approval:\n  mode: yolo\n', 'yaml', 'approval.mode', 'yolo');
  });

  describe('syntax errors (keyPath "")', () => {
    test('an unclosed bracket (YAML)', () => {
      const text = 'sandbox:\n  mounts: [\n    {source: a, target: /a}\n';
      const e = parseError(text, 'yaml');
      expect(e).toBeInstanceOf(ConfigFileError);
      expect(e.keyPath).toBe('');
      // yaml-cpp places it where the sequence should have closed (the end of the input) or at
      // the bracket; either way not before the bracket.
      const bracket = at(text, '[');
      expect(e.line > bracket.line || (e.line === bracket.line && e.column >= bracket.column)).toBe(true);
      expect(e.line).toBeLessThanOrEqual(4);
      expect(e.message).toContain(`${e.file}:${e.line}:${e.column}`);
    });

    test('an unclosed bracket (JSON): reported at the end of the input', () => {
      expectConfigError('{"sandbox": {"mounts": [\n  {"source": "a", "target": "/a"}\n', 'json', { keyPath: '', line: 3, column: 1 });
      expectConfigError('{"sandbox": {"mounts": [', 'json', { keyPath: '', line: 1, column: 25 });
    });

    test('a missing comma and a trailing comma (JSON)', () => {
      expectErrorAt('{"sandbox": {"root": "a" "readonly": true}}', 'json', '', '"readonly"');
      expectErrorAt('{\n  "sandbox": {\n    "root": "a",\n  }\n}', 'json', '', '}');
    });

    test('YAML-only syntax in a JSON file', () => {
      expectErrorAt('{"sandbox": {root: "a"}}', 'json', '', 'root');
      expectErrorAt('{"sandbox": {"root": \'a\'}}', 'json', '', "'a'");
    });

    // YAML forbids tabs in indentation; the error must point at the tab and say so, wherever
    // the tab is (yaml-cpp reports some of these as "illegal map value" at the colon).
    test.each([
      ['a tab indenting a key', 'sandbox:\n\troot: a\n'],
      ['a tab indenting a later key', 'sandbox:\n  root: a\n\tmounts: []\n'],
      ['a tab after spaces', 'sandbox:\n  root: a\n  \treadonly: true\n'],
      ['a tab indenting a list entry', 'sandbox:\n  mounts:\n\t- {source: a, target: /a}\n'],
      ['a tab before the first key', '\tsandbox: {}\n'],
    ])('tab indentation (YAML): %s', (_, text) => {
      const e = expectErrorAt(text, 'yaml', '', '\t');
      expect(e.expected).toMatch(/tab/);
    });

    test('an empty JSON file is not JSON', () => {
      expectConfigError('', 'json', { keyPath: '', line: 1, column: 1 });
      expectConfigError('\n  \n', 'json', { keyPath: '', line: 3, column: 1 });
    });

    test('anchors and aliases are refused', () => {
      const e = parseError('sandbox:\n  mounts:\n    - &m {source: a, target: /a}\n    - *m\n', 'yaml');
      expect(e).toBeInstanceOf(ConfigFileError);
      expect([3, 4]).toContain(e.line);
    });

    test('several YAML documents are refused', () => {
      const e = parseError('sandbox: {}\n---\nsandbox: {readonly: true}\n', 'yaml');
      expect(e).toBeInstanceOf(ConfigFileError);
      expect(e.line).toBeGreaterThanOrEqual(2);
    });
  });

  test('a config over 1 MiB is refused before parsing', () => {
    const e = parseError(`# ${'x'.repeat(1024 * 1024)}\n`, 'yaml');
    expect(e).toBeInstanceOf(ConfigFileError);
    expect(e.expected).toMatch(/1 MiB/);
  });

  test('lines count from the file\'s first line, past comments, blank lines and a BOM', () => {
    const text = '\uFEFF# header\n\n# more\nsandbox:\n  readonly: 1\n';
    expectConfigError(text, 'yaml', { keyPath: 'sandbox.readonly', line: 5, column: 13 });
  });

  test('loadProgramConfig reports the absolute file', async () => {
    const file = path.join(base, 'golem-forge.config.yml');
    write(file, 'sandbox:\n  mounts:\n    - {source: a, target: /a, approval: {write: sure}}\n');
    const e = await loadProgramConfig(file).catch((err) => err);
    expect(e).toBeInstanceOf(ConfigFileError);
    expect(e.file).toBe(file);
    expect({ keyPath: e.keyPath, line: e.line, column: e.column }).toEqual({
      keyPath: 'sandbox.mounts[0].approval.write', line: 3, column: 49,
    });
    expect(e.message).toBe(`${file}:3:49: sandbox.mounts[0].approval.write: expected ${e.expected}`);
  });
});
