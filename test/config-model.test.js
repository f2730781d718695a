'use strict';

// Program configuration files: the model they load into (paths, mounts, zones, defaults,
// formats) and the sandbox config it gives.
const path = require('path');
const { parseProgramConfig, sandboxConfigFrom, createSandboxFromConfig, ConfigFileError } = require('../lib');
const { tempDirEach } = require('./helpers');

let base;
tempDirEach('msb-config-', (dir) => {
  base = dir;
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
