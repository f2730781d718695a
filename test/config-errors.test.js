'use strict';

// Program configuration files: the exact place every kind of mistake is reported at.
const path = require('path');
const {
  parseProgramConfig, loadProgramConfig, createSandboxFromConfig, ConfigFileError, SandboxConfigError,
} = require('../lib');
const { tempDirEach, textBefore, write } = require('./helpers');

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
