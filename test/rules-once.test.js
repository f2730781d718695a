'use strict';

// Rules written once, in the core (issue 12): a suffix rule means the same from a config given to
// createMountSandbox, from a program config file and from an attachment policy, because all three
// are validated and folded by the core's suffix_rule; and the limits lib/ must know before the
// addon loads are the core's own.
const fs = require('fs');
const path = require('path');
const {
  createMountSandbox,
  parseProgramConfig,
  SandboxConfigError,
  ConfigFileError,
  AttachmentPolicyError,
  SuffixNotAllowedError,
  DEFAULT_MAX_READ_BYTES,
  MountSandbox,
} = require('../lib');
const { addon } = require('../lib/common/native');
const { rulesFor } = require('../lib/errors/from-codes');
const { makeTempDir, removeDir } = require('./helpers');

// Written suffixes at the edges of the rule: too short, no dot, a "/" or NUL (can never match a
// file name), case that folds (ASCII) and case that does not (É).
const CANDIDATES = ['.md', '.MD', '.ÉT', '.Ét', '.TaR.Gz', '.é', '..', '.', '', 'md', './x', '.a/b',
  '.a\u0000b', '\u0000.md', ' .md', '.md '];

let dir;
beforeEach(() => {
  dir = makeTempDir('msb-rules-once-');
});
afterEach(() => removeDir(dir));

// The folded list, or the error class, for `deniedSuffixes: [written]` given each way.
function fromCall(written) {
  try {
    return createMountSandbox({ root: dir, deniedSuffixes: [written] }).describe().policy.deniedSuffixes;
  } catch (error) {
    return error.constructor;
  }
}

function fromConfigFile(written) {
  const text = JSON.stringify({ sandbox: { root: '.', deniedSuffixes: [written] } });
  try {
    return parseProgramConfig(text, { file: path.join(dir, 'golem-forge.config.json') }).sandbox.policy.deniedSuffixes;
  } catch (error) {
    return error.constructor;
  }
}

describe('suffix rules: one validator and one folding', () => {
  test.each(CANDIDATES.map((c) => [JSON.stringify(c), c]))('%s is one rule from a call and from a config file', (_, written) => {
    const viaCall = fromCall(written);
    const viaFile = fromConfigFile(written);
    if (Array.isArray(viaFile)) {
      expect(viaCall).toEqual(viaFile);
    } else {
      expect(viaFile).toBe(ConfigFileError);
      expect(viaCall).toBe(SandboxConfigError);
    }
  });

  test('the rule is ASCII folding: ".ÉT" and ".Ét" are one rule, ".ét" another', () => {
    expect(fromCall('.ÉT')).toEqual(['.Ét']);
    expect(fromConfigFile('.ÉT')).toEqual(['.Ét']);
    expect(fromCall('.ét')).toEqual(['.ét']);
  });

  test('a suffix holding NUL is refused from a call and from a config file', () => {
    expect(fromCall('.a\u0000b')).toBe(SandboxConfigError);
    expect(fromConfigFile('.a\u0000b')).toBe(ConfigFileError);
  });

  test('attachment suffixes go through the same rule (with golem-forge\'s optional dot)', async () => {
    fs.writeFileSync(path.join(dir, 'key.Ét'), 'x');
    fs.writeFileSync(path.join(dir, 'key.ét'), 'x');
    const sb = createMountSandbox({ root: dir });
    await expect(sb.readAttachments(['/key.Ét'], { denied_suffixes: ['ÉT'] })).rejects.toBeInstanceOf(AttachmentPolicyError);
    await expect(sb.readAttachments(['/key.ét'], { denied_suffixes: ['ÉT'] })).resolves.toHaveLength(1);
    for (const bad of ['a/b', '.a/b', '.', 'a\u0000b']) {
      await expect(sb.readAttachments(['/key.ét'], { denied_suffixes: [bad] })).rejects.toThrow(TypeError);
    }
  });

  test('the addon folds and matches as the config file does', () => {
    const { foldSuffixes, matchingSuffix } = addon();
    expect(foldSuffixes(['.TXT', '.ÉT'])).toEqual({ suffixes: ['.txt', '.Ét'] });
    expect(foldSuffixes(['.md', 'txt'])).toEqual({ invalid: 1 });
    expect(matchingSuffix('notes.TxT', ['.md', '.txt'])).toBe(1);
    expect(matchingSuffix('notes.ét', ['.ÉT'])).toBe(-1);
    expect(matchingSuffix('notes.Ét', ['.ÉT'])).toBe(0);
  });
});

// The settings both a call and a config file can give: a value is accepted by both or refused by
// both, and accepted values mean the same. Values at the core's bounds and beyond them.
describe('counts and approvals: one set of bounds', () => {
  // The value as the sandbox holds it, or the error class.
  function outcome(make, read) {
    try {
      return read(make());
    } catch (error) {
      return error.constructor;
    }
  }

  function expectSameRule(viaCall, viaFile) {
    if (viaFile === ConfigFileError) expect(viaCall).toBe(SandboxConfigError);
    else expect(viaCall).toEqual(viaFile);
  }

  const parse = (sandbox, rest = {}) => parseProgramConfig(JSON.stringify({ sandbox: { root: '.', ...sandbox }, ...rest }),
    { file: path.join(dir, 'golem-forge.config.json') });

  test.each([0, 1, 5, 100, 101, 500, 1000, 1.5, -1, '3', null])('maxDepth %p', (value) => {
    const viaCall = outcome(() => createMountSandbox({ root: dir, maxDepth: value }), (sb) => sb.describe().maxDepth);
    const viaFile = outcome(() => parse({}, { delegation: { maxDepth: value } }), (c) => c.delegation.maxDepth);
    expectSameRule(viaCall, viaFile);
  });

  test.each([0, 1, 1024, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, -1, 1.5, '5', null])('maxFileBytes %p', (value) => {
    const viaCall = outcome(() => createMountSandbox({ root: dir, maxFileBytes: value }), (sb) => sb.describe().policy.maxFileBytes);
    const viaFile = outcome(() => parse({ maxFileBytes: value }), (c) => c.sandbox.policy.maxFileBytes);
    expectSameRule(viaCall, viaFile);
  });

  test.each(['preApproved', 'ask', 'blocked', 'Ask', 'allow', '', null, 1])('approval write %p', (value) => {
    const approval = { write: value };
    const viaCall = outcome(() => createMountSandbox({ root: dir, approval }), (sb) => sb.describe().approval);
    const viaFile = outcome(() => parse({ approval }), (c) => c.sandbox.approval);
    expectSameRule(viaCall, viaFile);
  });

  test('maxReadBytes is bounded by the addon\'s limit', () => {
    const { maxReadBytes } = addon().limits;
    expect(createMountSandbox({ root: dir, maxReadBytes })).toBeInstanceOf(MountSandbox);
    expect(() => createMountSandbox({ root: dir, maxReadBytes: maxReadBytes + 1 })).toThrow(SandboxConfigError);
  });

  test('restrict() checks approvals with the same rule, as a TypeError', () => {
    const sb = createMountSandbox({ root: dir });
    for (const value of ['Ask', '', null, 1]) {
      expect(() => sb.restrict({ approval: { write: value } })).toThrow(TypeError);
    }
    expect(sb.restrict({ approval: { write: 'ask' } }).describe().approval).toEqual({ write: 'ask', delete: 'ask' });
  });
});

// lib/ holds these before the addon loads (argument checks, the public DEFAULT_MAX_READ_BYTES,
// fail-soft imports); each copy must be the core's value.
describe("lib's copies of the core's limits", () => {
  const source = (file) => fs.readFileSync(path.join(__dirname, '..', 'lib', file), 'utf8');
  // The value of `const NAME = <expression>;` in a lib file, evaluated.
  function libConstant(file, name) {
    const match = new RegExp(`^const ${name} = ([^;]+);`, 'm').exec(source(file));
    if (match === null) throw new Error(`${name} not found in lib/${file}`);
    // Names of other constants of the same file, as it defines them
    const names = [...match[1].matchAll(/\b[A-Z][A-Z_]+\b/g)].map((m) => m[0]);
    const defined = names.map((n) => `const ${n} = ${libConstant(file, n)};`).join(' ');
    return Function(`"use strict"; ${defined} return (${match[1].replace(/\/\/.*$/, '')});`)();
  }

  test.each([
    ['index.js', 'DEFAULT_GLOB_LIMIT', 'defaultGlobLimit'],
    ['index.js', 'MAX_GLOB_LIMIT', 'maxGlobLimit'],
    ['index.js', 'MAX_GLOB_ENTRIES', 'maxGlobEntries'],
    ['index.js', 'MAX_PATH_LENGTH', 'maxPathBytes'],
    ['config/program.js', 'MAX_CONFIG_BYTES', 'maxConfigBytes'],
    ['config/config.js', 'DEFAULT_MAX_READ_BYTES', 'defaultMaxReadBytes'],
    ['config/config.js', 'DEFAULT_MAX_DEPTH', 'defaultMaxDepth'],
    ['config/config.js', 'DEFAULT_MAX_DEPTH', 'defaultDelegationDepth'],
    ['exec/view.js', 'DEFAULT_PATH', 'defaultCommandPath'],
    ['search/search.js', 'GREP_BYTES_PER_THREAD', 'grepBytesPerThread'],
    ['search/search.js', 'GREP_LINE_BOUND', 'grepLineBound'],
    ['search/search.js', 'MAX_GREP_THREADS', 'maxGrepThreads'],
  ])('lib/%s %s is the core\'s %s', (file, name, core) => {
    expect(addon().limits[core]).toEqual(expect.anything());
    expect(libConstant(file, name)).toBe(addon().limits[core]);
  });

  test('the exported default and the effective defaults are the core\'s', () => {
    expect(DEFAULT_MAX_READ_BYTES).toBe(addon().limits.defaultMaxReadBytes);
    const config = createMountSandbox({ root: dir }).describe();
    expect(config.maxReadBytes ?? addon().limits.defaultMaxReadBytes).toBe(addon().limits.defaultMaxReadBytes);
    const program = parseProgramConfig('sandbox:\n  root: .\n', { file: path.join(dir, 'golem-forge.config.yaml') });
    expect(program.delegation.maxDepth).toBe(addon().limits.defaultDelegationDepth);
  });

  test('the attachment path limit is the core\'s path limit', () => {
    expect(source('fs/attachments.js')).toContain(`p.length >= ${addon().limits.maxPathBytes}`);
  });
});

// rulesFor (lib/errors/from-codes.js) finds the governing mount lexically, to name its rules in errors and in
// the CLI's explain; the core's MountTable::locate decides. Each mount denies only its own tag
// suffix, so the core refusing "x.t<k>" says which mount governs the path.
describe('rulesFor agrees with the core on which mount governs a path', () => {
  test('on random paths through nested and look-alike mounts', () => {
    const targets = ['/data', '/data/sub', '/data/sub/deep', '/datax', '/other'];
    const mounts = targets.map((target, i) => {
      const source = path.join(dir, `m${i}`);
      fs.mkdirSync(source);
      return { source, target, deniedSuffixes: [`.t${i + 1}`] };
    });
    fs.mkdirSync(path.join(dir, 'root'));
    const sb = createMountSandbox({ root: path.join(dir, 'root'), deniedSuffixes: ['.t0'], mounts: mounts.reverse() });
    const config = sb.describe();
    const pieces = ['data', 'sub', 'deep', 'datax', 'other', 'a', '.', '..', ''];
    let seed = 7;
    // The high bits of the generator: its low bits repeat with a short period.
    const next = (n) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * n);
    const refusals = new Set();
    let compared = 0;
    for (let i = 0; i < 3000; i++) {
      const start = ['', ...targets][next(targets.length + 1)];
      const parts = Array.from({ length: next(4) }, () => pieces[next(pieces.length)]);
      const tag = `.t${next(targets.length + 1)}`;
      const p = `${start}/${[...parts, `x${tag}`].join('/')}`;
      if (!sb.isValidPath(p)) continue;
      const byCore = sb.checkChange(p, 'write') instanceof SuffixNotAllowedError;
      const lexically = rulesFor(config, p).policy.deniedSuffixes.includes(tag);
      expect([p, lexically]).toEqual([p, byCore]);
      if (byCore) refusals.add(tag);
      compared += 1;
    }
    // Every mount and the root governed some path, so each branch of the lookup was compared.
    expect(refusals.size).toBe(targets.length + 1);
    expect(compared).toBeGreaterThan(1000);
  });
});
