'use strict';

// .worker files and call_worker's sandbox rule: what a worker declares, and the sandbox it then
// gets from its parent (never wider), on real directories.
const fs = require('fs');
const path = require('path');
const {
  createMountSandbox,
  createSandboxFromConfig,
  loadProgramConfig,
  parseWorkerFile,
  loadWorkerFile,
  sandboxForWorker,
  ConfigFileError,
  WorkerSandboxError,
  PermissionEscalationError,
  ReadOnlyError,
  NotFoundError,
  InvalidPathError,
  OutsideSandboxError,
  OperationBlockedError,
} = require('../lib');
const { RESOLVERS, tempDirEach, textBefore, write } = require('./helpers');

let base;
tempDirEach('msb-workers-', (dir) => {
  base = dir;
});

// Writes a .worker file with this frontmatter (lines) and loads it.
async function workerFile(name, frontmatter) {
  const file = path.join(base, 'workers', `${name}.worker`);
  write(file, ['---', ...frontmatter, '---', `Instructions for ${name}.`, ''].join('\n'));
  return loadWorkerFile(file);
}

function at(text, needle, n = 1) {
  const before = textBefore(text, needle, n);
  return { line: before.split('\n').length, column: before.length - before.lastIndexOf('\n') };
}

function workerError(text, file = path.join(base, 'bad.worker')) {
  try {
    parseWorkerFile(text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    expect(error.file).toBe(file);
    return error;
  }
  throw new Error('expected a ConfigFileError');
}

function expectWorkerErrorAt(text, keyPath, needle, n = 1) {
  const e = workerError(text);
  expect({ keyPath: e.keyPath, line: e.line, column: e.column }).toEqual({ keyPath, ...at(text, needle, n) });
  expect(e.message).toContain(`${e.file}:${e.line}:${e.column}`);
  return e;
}

describe('parseWorkerFile and loadWorkerFile', () => {
  test('no sandbox key: inherit the parent\'s sandbox', async () => {
    const w = await workerFile('helper', ['name: helper', 'description: helps', 'model: anthropic:claude-haiku', 'tools: [read_file]']);
    expect(w).toEqual({ name: 'helper', file: path.join(base, 'workers', 'helper.worker'), sandbox: { kind: 'inherit' } });
  });

  test('no frontmatter at all: inherit, no name', () => {
    expect(parseWorkerFile('Just instructions.\n---\nnot frontmatter\n', '/w/x.worker')).toEqual({
      name: null, file: '/w/x.worker', sandbox: { kind: 'inherit' },
    });
    expect(parseWorkerFile('', '/w/empty.worker').sandbox).toEqual({ kind: 'inherit' });
    expect(parseWorkerFile('---\n---\nbody\n').sandbox).toEqual({ kind: 'inherit' });
  });

  test('sandbox: false and zones: [] mean no sandbox', async () => {
    expect((await workerFile('pure', ['name: pure', 'sandbox: false'])).sandbox).toEqual({ kind: 'none' });
    expect((await workerFile('nozones', ['name: nozones', 'sandbox:', '  zones: []'])).sandbox).toEqual({ kind: 'none' });
  });

  test('restrict, readonly, approval', async () => {
    const w = await workerFile('reviewer', [
      'name: reviewer',
      'sandbox:',
      '  restrict: /src/',
      '  readonly: true',
      '  approval:',
      '    write: ask',
    ]);
    expect(w.sandbox).toEqual({ kind: 'restrict', restrict: '/src', readonly: true, approval: { write: 'ask' } });
    const approvalOnly = await workerFile('editor', ['name: editor', 'sandbox:', '  approval: {delete: blocked}']);
    expect(approvalOnly.sandbox).toEqual({ kind: 'restrict', approval: { delete: 'blocked' } });
  });

  test('zones, with their places in the file', async () => {
    const lines = ['name: analyst', 'sandbox:', '  zones:', '    - name: data', '      mode: ro', '    - {name: cache}'];
    const w = await workerFile('analyst', lines);
    const text = fs.readFileSync(w.file, 'utf8');
    expect(w.sandbox).toEqual({
      kind: 'zones',
      zones: [
        { name: 'data', mode: 'ro', ...at(text, 'name: data') },
        { name: 'cache', mode: 'rw', ...at(text, '{name: cache}') },
      ],
    });
  });

  test('CRLF line endings and a byte order mark', () => {
    const w = parseWorkerFile('\uFEFF---\r\nname: win\r\nsandbox:\r\n  restrict: /docs\r\n---\r\nbody\r\n', '/w/win.worker');
    expect(w).toEqual({ name: 'win', file: '/w/win.worker', sandbox: { kind: 'restrict', restrict: '/docs' } });
  });

  describe('mistakes, with lines counted from the file\'s first line', () => {
    test('a relative restrict', () => {
      const e = expectWorkerErrorAt('---\nname: w\nsandbox:\n  restrict: src\n---\n', 'sandbox.restrict', 'src');
      expect(e.expected).toMatch(/absolute/);
    });

    test('a restrict that climbs out', () => {
      expectWorkerErrorAt('---\nsandbox:\n  restrict: /src/../../etc\n---\n', 'sandbox.restrict', '/src');
    });

    test('readonly as a string, sandbox: true', () => {
      expectWorkerErrorAt('---\nsandbox:\n  readonly: "true"\n---\n', 'sandbox.readonly', '"true"');
      expectWorkerErrorAt('---\nname: w\nsandbox: true\n---\n', 'sandbox', 'true');
    });

    test('unknown keys in the sandbox declaration and in its approval', () => {
      expectWorkerErrorAt('---\nsandbox:\n  restrict: /src\n  readOnly: true\n---\n', 'sandbox.readOnly', 'readOnly');
      expectWorkerErrorAt('---\nsandbox:\n  approval: {write: ask, move: ask}\n---\n', 'sandbox.approval.move', 'move');
    });

    test('a bad approval value', () => {
      const e = expectWorkerErrorAt('---\nsandbox:\n  approval:\n    write: sometimes\n---\n', 'sandbox.approval.write', 'sometimes');
      expect(e.expected).toContain('preApproved');
    });

    test('zones together with restrict (the second one written is reported)', () => {
      expectWorkerErrorAt('---\nsandbox:\n  zones: [{name: a}]\n  restrict: /a\n---\n', 'sandbox.restrict', 'restrict');
      expectWorkerErrorAt('---\nsandbox:\n  readonly: true\n  zones: [{name: a}]\n---\n', 'sandbox.zones', 'zones');
    });

    test('bad zone requests', () => {
      expectWorkerErrorAt('---\nsandbox:\n  zones:\n    - name: a\n    - name: b\n      mode: rwx\n---\n', 'sandbox.zones[1].mode', 'rwx');
      expectWorkerErrorAt('---\nsandbox:\n  zones:\n    - name: a/b\n---\n', 'sandbox.zones[0].name', 'a/b');
      expectWorkerErrorAt('---\nsandbox:\n  zones:\n    - name: a\n    - name: a\n      mode: ro\n---\n', 'sandbox.zones[1].name', 'a\n      mode');
      expectWorkerErrorAt('---\nsandbox:\n  zones:\n    - {mode: ro}\n---\n', 'sandbox.zones[0].name', '{');
      expectWorkerErrorAt('---\nsandbox:\n  zones: data\n---\n', 'sandbox.zones', 'data');
    });

    test('an unclosed frontmatter', () => {
      const e = workerError('---\nname: w\nsandbox: false\n\nNo closing line.\n');
      expect({ line: e.line, column: e.column, keyPath: e.keyPath }).toEqual({ line: 1, column: 1, keyPath: '' });
      expect(e.expected).toMatch(/---/);
    });

    test('frontmatter that is not YAML', () => {
      const e = workerError('---\nname: w\nsandbox: {restrict: /a\n---\n');
      expect(e.keyPath).toBe('');
      expect(e.line).toBeGreaterThanOrEqual(3);
    });

    test('loadWorkerFile names the absolute file', async () => {
      const file = path.join(base, 'w', 'bad.worker');
      write(file, '---\nsandbox:\n  restrict: relative\n---\n');
      const e = await loadWorkerFile(path.relative(process.cwd(), file)).catch((err) => err);
      expect(e).toBeInstanceOf(ConfigFileError);
      expect(e.file).toBe(file);
      expect(e.message).toBe(`${file}:3:13: sandbox.restrict: expected ${e.expected}`);
    });
  });
});

describe.each(RESOLVERS)('sandboxForWorker (%s resolver)', (resolver) => {
  let root;

  beforeEach(() => {
    root = path.join(base, 'project');
    write(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
    write(path.join(root, 'src', 'lib', 'b.ts'), 'export const b = 2;\n');
    write(path.join(root, 'secret.txt'), 'SECRET');
  });

  test('attack: a zone keeps the mounts nested in it, with their cover and their rules', async () => {
    const data = path.join(base, 'data');
    write(path.join(data, 'keys', 'k.pem'), 'PRIVATE KEY');
    write(path.join(data, 'ref', 'shadowed.txt'), 'covered by the /data/ref mount');
    write(path.join(base, 'refdocs', 'doc.txt'), 'reference');
    const parent = createMountSandbox({
      root: null,
      resolver,
      mounts: [
        { source: data, target: '/data' },
        { source: path.join(data, 'keys'), target: '/data/keys', deniedSuffixes: ['.pem'], approval: { write: 'blocked' } },
        { source: path.join(base, 'refdocs'), target: '/data/ref', readonly: true },
      ],
    });
    const child = sandboxForWorker(parent, await workerFile('helper', ['name: helper', 'sandbox:', '  zones:', '    - name: data']));
    await expect(child.read('/data/keys/k.pem')).rejects.toMatchObject({ code: 'SUFFIX_NOT_ALLOWED' });
    await expect(child.write('/data/keys/new.txt', 'x')).rejects.toMatchObject({ code: 'WRITE_BLOCKED' });
    await expect(child.read('/data/ref/shadowed.txt')).rejects.toBeInstanceOf(NotFoundError);
    expect(await child.read('/data/ref/doc.txt')).toBe('reference');
    await expect(child.write('/data/ref/x.txt', 'x')).rejects.toBeInstanceOf(ReadOnlyError);
    expect((await child.glob('/**/*.txt')).paths).toEqual(['/data/ref/doc.txt']);
    expect(fs.existsSync(path.join(data, 'ref', 'x.txt'))).toBe(false);
    expect(fs.existsSync(path.join(base, 'refdocs', 'x.txt'))).toBe(false);
  });

  describe('golem-forge declarations', () => {
    test('inherit: the parent\'s view, one level deeper', async () => {
      const parent = createMountSandbox({ root, resolver, mounts: [{ source: path.join(base, 'ro'), target: '/ro', readonly: true }] });
      const child = sandboxForWorker(parent, await workerFile('helper', ['name: helper']));
      expect(child).not.toBeNull();
      expect(child).not.toBe(parent);
      expect(child.depth).toBe(parent.depth + 1);
      const { depth: pd, ...parentTable } = parent.describe();
      const { depth: cd, ...childTable } = child.describe();
      expect(cd).toBe(pd + 1);
      expect(childTable).toEqual(parentTable);
      expect(await child.read('/src/a.ts')).toBe('export const a = 1;\n');
      expect(await child.read('/secret.txt')).toBe('SECRET');
      await child.write('/out/report.md', '# report');
      expect(fs.readFileSync(path.join(root, 'out', 'report.md'), 'utf8')).toBe('# report');
      expect(await parent.read('/out/report.md')).toBe('# report');
      await expect(child.write('/ro/x', 'x')).rejects.toBeInstanceOf(ReadOnlyError);
      // And again, for the child's own sub-worker.
      const grandchild = sandboxForWorker(child, await workerFile('helper2', ['name: helper2']));
      expect(grandchild.depth).toBe(2);
    });

    test('none: no sandbox, whatever the parent has', async () => {
      const parent = createMountSandbox({ root, resolver });
      expect(sandboxForWorker(parent, await workerFile('pure', ['name: pure', 'sandbox: false']))).toBeNull();
      expect(sandboxForWorker(parent, await workerFile('nozones', ['sandbox:', '  zones: []']))).toBeNull();
      expect(sandboxForWorker(null, await workerFile('pure2', ['sandbox: false']))).toBeNull();
    });

    test('restrict to /src, read-only: the child sees /src at "/" and nothing else, and cannot write', async () => {
      const parent = createMountSandbox({ root, resolver });
      const reviewer = await workerFile('reviewer', ['name: reviewer', 'sandbox:', '  restrict: /src', '  readonly: true']);
      const child = sandboxForWorker(parent, reviewer);
      expect(child.depth).toBe(1);
      expect(await child.read('/a.ts')).toBe('export const a = 1;\n');
      expect(await child.read('/lib/b.ts')).toBe('export const b = 2;\n');
      expect(await child.list('/')).toEqual(['a.ts', 'lib']);
      expect(child.resolve('/a.ts')).toBe(path.join(root, 'src', 'a.ts'));

      const refused = await child.write('/a.ts', 'changed').catch((e) => e);
      expect(refused).toBeInstanceOf(ReadOnlyError);
      expect(refused.writablePaths).toEqual([]);
      expect(refused.toLLMMessage()).not.toContain(base);
      await expect(child.write('/new.ts', 'x')).rejects.toBeInstanceOf(ReadOnlyError);
      await expect(child.delete('/a.ts')).rejects.toBeInstanceOf(ReadOnlyError);
      expect(child.canWrite('/a.ts')).toBe(false);
      expect(fs.readFileSync(path.join(root, 'src', 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
      expect(fs.existsSync(path.join(root, 'src', 'new.ts'))).toBe(false);

      // Outside /src does not exist for the child.
      await expect(child.read('/secret.txt')).rejects.toBeInstanceOf(NotFoundError);
      await expect(child.read('/../secret.txt')).rejects.toBeInstanceOf(InvalidPathError);
      await expect(child.read('/src/a.ts')).rejects.toBeInstanceOf(NotFoundError);
      // The parent keeps writing.
      await parent.write('/src/c.ts', 'c');
      expect(await child.read('/c.ts')).toBe('c');
    });

    test('asking read-write under a read-only parent is an escalation naming the worker', async () => {
      const parent = createMountSandbox({ root, resolver, readonly: true });
      const writer = await workerFile('writer', ['name: writer', 'sandbox:', '  restrict: /src', '  readonly: false']);
      let error;
      expect(() => {
        try {
          sandboxForWorker(parent, writer);
        } catch (e) {
          error = e;
          throw e;
        }
      }).toThrow(PermissionEscalationError);
      expect(error.code).toBe('PERMISSION_ESCALATION');
      expect(error.message).toContain("Worker 'writer'");
      expect(error.worker).toBe('writer');
      expect(error.message).not.toContain(base);
      // Leaving readonly out is not asking for read-write: the child is read-only like its parent.
      const quiet = sandboxForWorker(parent, await workerFile('quiet', ['name: quiet', 'sandbox:', '  restrict: /src']));
      await expect(quiet.write('/a.ts', 'x')).rejects.toBeInstanceOf(ReadOnlyError);
    });

    test('asking read-write on a read-only mount of a writable parent is an escalation too', async () => {
      const parent = createMountSandbox({ root, resolver, mounts: [{ source: path.join(root, 'src'), target: '/code', readonly: true }] });
      const w = await workerFile('coder', ['name: coder', 'sandbox:', '  restrict: /code', '  readonly: false']);
      expect(() => sandboxForWorker(parent, w)).toThrow(PermissionEscalationError);
    });

    test('a declaration with no parent sandbox is an error naming the worker', async () => {
      for (const lines of [
        ['name: reviewer', 'sandbox:', '  restrict: /src', '  readonly: true'],
        ['name: reviewer', 'sandbox:', '  approval: {write: ask}'],
        ['name: reviewer', 'sandbox:', '  zones: [{name: data}]'],
      ]) {
        const w = await workerFile('reviewer', lines);
        let error;
        try {
          sandboxForWorker(null, w);
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(WorkerSandboxError);
        expect(error.code).toBe('NO_PARENT_SANDBOX');
        expect(error.message).toBe("Worker 'reviewer' declares sandbox restrictions but parent has no sandbox");
        expect(error.worker).toBe('reviewer');
      }
      const unnamed = parseWorkerFile('---\nsandbox: {restrict: /src}\n---\n');
      expect(() => sandboxForWorker(undefined, unnamed)).toThrow('declares sandbox restrictions but parent has no sandbox');
    });

    test('inherit with no parent sandbox: no sandbox', async () => {
      const helper = await workerFile('helper', ['name: helper']);
      expect(sandboxForWorker(null, helper)).toBeNull();
      expect(sandboxForWorker(undefined, helper)).toBeNull();
    });

    test('a restrict that leaves the parent\'s view fails', async () => {
      const parent = createMountSandbox({ root, resolver }).restrict({ restrict: '/src' });
      const child = sandboxForWorker(parent, await workerFile('deep', ['sandbox: {restrict: /lib}']));
      expect(await child.read('/b.ts')).toBe('export const b = 2;\n');
      await expect(child.read('/../a.ts')).rejects.toBeInstanceOf(InvalidPathError);
    });

    test('anything but a declaration is a TypeError', () => {
      const parent = createMountSandbox({ root, resolver });
      expect(() => sandboxForWorker(parent, null)).toThrow(TypeError);
      expect(() => sandboxForWorker(parent, { name: 'x' })).toThrow(TypeError);
    });
  });

  describe('approvals only tighten', () => {
    test('parent preApproved, child asks for ask: ask (other operations keep the parent\'s)', async () => {
      const parent = createMountSandbox({ root, resolver, approval: { write: 'preApproved', delete: 'preApproved' } });
      const editor = await workerFile('editor', ['name: editor', 'sandbox:', '  approval:', '    write: ask']);
      const child = sandboxForWorker(parent, editor);
      expect(child.approvalFor('/x', 'write')).toBe('ask');
      expect(child.approvalFor('/src/a.ts', 'write')).toBe('ask');
      expect(child.approvalFor('/x', 'delete')).toBe('preApproved');
      expect(parent.approvalFor('/x', 'write')).toBe('preApproved');
      // "ask" is for the caller's approval hook: the write itself goes through.
      await child.write('/x', 'x');
      expect(fs.readFileSync(path.join(root, 'x'), 'utf8')).toBe('x');
    });

    test('parent blocked, child asks for preApproved: still blocked, and writes fail', async () => {
      const parent = createMountSandbox({ root, resolver, approval: { write: 'blocked', delete: 'ask' } });
      const sneaky = await workerFile('sneaky', ['name: sneaky', 'sandbox:', '  approval: {write: preApproved, delete: preApproved}']);
      const child = sandboxForWorker(parent, sneaky);
      expect(child.approvalFor('/x', 'write')).toBe('blocked');
      expect(child.approvalFor('/x', 'delete')).toBe('ask');
      const refused = await child.write('/x', 'x').catch((e) => e);
      expect(refused).toBeInstanceOf(OperationBlockedError);
      expect(refused.code).toBe('WRITE_BLOCKED');
      expect(child.checkChange('/x', 'write')).toBeInstanceOf(OperationBlockedError);
      expect(fs.existsSync(path.join(root, 'x'))).toBe(false);
      await expect(child.edit('/src/a.ts', '1', '2')).rejects.toBeInstanceOf(OperationBlockedError);
      expect(fs.readFileSync(path.join(root, 'src', 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
    });

    test('per-mount approvals carry into a restricted child', async () => {
      const parent = createMountSandbox({
        root,
        resolver,
        mounts: [{ source: path.join(base, 'notes'), target: '/notes', approval: { write: 'preApproved', delete: 'blocked' } }],
      });
      const child = sandboxForWorker(parent, await workerFile('n', ['sandbox: {restrict: /notes, approval: {write: ask}}']));
      expect(child.approvalFor('/a.md', 'write')).toBe('ask');
      expect(child.approvalFor('/a.md', 'delete')).toBe('blocked');
    });
  });

  describe('seed 000 zones', () => {
    async function zoneParent(zones, extra = []) {
      const project = path.join(base, 'zoned');
      const lines = ['sandbox:', '  zones:'];
      for (const [name, mode] of Object.entries(zones)) lines.push(`    ${name}: {path: ${name}, mode: ${mode}}`);
      write(path.join(project, 'golem-forge.config.yaml'), [...lines, ...extra, ''].join('\n'));
      const config = await loadProgramConfig(path.join(project, 'golem-forge.config.yaml'));
      const sandbox = await createSandboxFromConfig(config);
      return { sandbox, zoneDir: (name) => path.join(project, '.sandbox', name) };
    }

    test('a child that declares {data: rw} sees only data', async () => {
      const { sandbox: parent, zoneDir } = await zoneParent({ data: 'rw', workspace: 'rw', cache: 'rw' });
      write(path.join(zoneDir('workspace'), 'w.txt'), 'workspace file');
      expect(await parent.list('/')).toEqual(['cache', 'data', 'workspace']);
      const child = sandboxForWorker(parent, await workerFile('loader', ['name: loader', 'sandbox:', '  zones:', '    - name: data', '      mode: rw']));
      expect(await child.list('/')).toEqual(['data']);
      expect(child.zones()).toEqual(['data']);
      expect(child.depth).toBe(1);
      await child.write('/data/rows.csv', 'a,b\n');
      expect(fs.readFileSync(path.join(zoneDir('data'), 'rows.csv'), 'utf8')).toBe('a,b\n');
      const outside = await child.read('/workspace/w.txt').catch((e) => e);
      expect(outside).toBeInstanceOf(OutsideSandboxError);
      expect(outside.readablePaths).toEqual(['/data']);
      expect(outside.toLLMMessage()).not.toContain(base);
      await expect(child.write('/cache/x', 'x')).rejects.toBeInstanceOf(OutsideSandboxError);
      expect(fs.existsSync(path.join(zoneDir('cache'), 'x'))).toBe(false);
    });

    test('a child may take a zone read-only', async () => {
      const { sandbox: parent, zoneDir } = await zoneParent({ data: 'rw', workspace: 'rw' });
      write(path.join(zoneDir('data'), 'd.txt'), 'data');
      const child = sandboxForWorker(parent, await workerFile('reader', ['sandbox:', '  zones: [{name: data, mode: ro}, {name: workspace}]']));
      expect(await child.read('/data/d.txt')).toBe('data');
      const refused = await child.write('/data/d.txt', 'x').catch((e) => e);
      expect(refused).toBeInstanceOf(ReadOnlyError);
      expect(refused.writablePaths).toEqual(['/workspace']);
      await child.write('/workspace/out.txt', 'o');
      expect(fs.readFileSync(path.join(zoneDir('data'), 'd.txt'), 'utf8')).toBe('data');
    });

    test('asking rw on a zone the parent has ro is an escalation naming rw, ro and the zone', async () => {
      const { sandbox: parent } = await zoneParent({ data: 'ro', workspace: 'rw' });
      const greedy = await workerFile('greedy', ['name: greedy', 'sandbox:', '  zones:', '    - {name: workspace, mode: rw}', '    - {name: data, mode: rw}']);
      const error = (() => {
        try {
          sandboxForWorker(parent, greedy);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(PermissionEscalationError);
      expect(error.code).toBe('PERMISSION_ESCALATION');
      expect(error.message).toContain("'rw'");
      expect(error.message).toContain("'ro'");
      expect(error.message).toContain("'data'");
      expect(error.message).not.toContain("'workspace'");
      expect(error.message).toContain("Worker 'greedy'");
      expect(error.worker).toBe('greedy');
    });

    test('asking for a zone the parent lacks is ZONE_NOT_FOUND naming it', async () => {
      const { sandbox: parent } = await zoneParent({ data: 'rw', workspace: 'rw' });
      const lost = await workerFile('lost', ['name: lost', 'sandbox:', '  zones: [{name: data}, {name: secrets, mode: ro}]']);
      const error = (() => {
        try {
          sandboxForWorker(parent, lost);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(WorkerSandboxError);
      expect(error.code).toBe('ZONE_NOT_FOUND');
      expect(error.message).toContain("'secrets'");
      expect(error.message).not.toContain("'data'");
      expect(error.message).toContain('data, workspace');
      expect(error.worker).toBe('lost');
    });

    test('a grandchild narrows its parent\'s zones, never the grandparent\'s', async () => {
      const { sandbox: top, zoneDir } = await zoneParent({ data: 'rw', workspace: 'rw', cache: 'rw' });
      const child = sandboxForWorker(top, await workerFile('child', ['name: child', 'sandbox:', '  zones: [{name: data}, {name: workspace, mode: ro}]']));
      expect(child.zones().sort()).toEqual(['data', 'workspace']);
      const grandchild = sandboxForWorker(child, await workerFile('grandchild', ['name: grandchild', 'sandbox:', '  zones: [{name: data, mode: ro}]']));
      expect(grandchild.depth).toBe(2);
      expect(await grandchild.list('/')).toEqual(['data']);
      await child.write('/data/shared.txt', 'from child');
      expect(await grandchild.read('/data/shared.txt')).toBe('from child');
      await expect(grandchild.write('/data/shared.txt', 'x')).rejects.toBeInstanceOf(ReadOnlyError);
      expect(fs.readFileSync(path.join(zoneDir('data'), 'shared.txt'), 'utf8')).toBe('from child');

      const wantsWorkspace = await workerFile('ws', ['name: ws', 'sandbox:', '  zones: [{name: workspace, mode: rw}]']);
      const escalation = (() => { try { return sandboxForWorker(child, wantsWorkspace); } catch (e) { return e; } })();
      expect(escalation).toBeInstanceOf(PermissionEscalationError);
      expect(escalation.message).toContain("'workspace'");
      // The same request is fine one level up.
      expect(sandboxForWorker(top, wantsWorkspace).zones()).toEqual(['workspace']);

      const wantsCache = await workerFile('cachey', ['name: cachey', 'sandbox:', '  zones: [{name: cache}]']);
      const missing = (() => { try { return sandboxForWorker(child, wantsCache); } catch (e) { return e; } })();
      expect(missing).toBeInstanceOf(WorkerSandboxError);
      expect(missing.code).toBe('ZONE_NOT_FOUND');
      expect(missing.message).toContain("'cache'");
    });

    test('a read-only zone form (sandbox readonly: true) cannot be taken rw', async () => {
      const { sandbox: parent } = await zoneParent({ data: 'rw' }, ['  readonly: true']);
      const w = await workerFile('w', ['name: w', 'sandbox:', '  zones: [{name: data, mode: rw}]']);
      expect(() => sandboxForWorker(parent, w)).toThrow(PermissionEscalationError);
    });
  });

  describe('delegation.maxDepth', () => {
    async function configParent(delegation) {
      const project = path.join(base, 'deep');
      write(path.join(project, 'golem-forge.config.yaml'), `sandbox:\n  root: project\n${delegation}`);
      write(path.join(project, 'project', 'src', 'a.ts'), 'a');
      return createSandboxFromConfig(await loadProgramConfig(path.join(project, 'golem-forge.config.yaml')));
    }

    test.each([
      ['restrict', ['name: narrow', 'sandbox: {restrict: /, readonly: true}']],
      ['inherit', ['name: narrow']],
      ['approval only', ['name: narrow', 'sandbox: {approval: {write: ask}}']],
    ])('a %s chain deeper than maxDepth fails with DEPTH_EXCEEDED', async (_, lines) => {
      const parent = await configParent('delegation:\n  maxDepth: 2\n');
      expect(parent.describe().maxDepth).toBe(2);
      const w = await workerFile('narrow', lines);
      const c1 = sandboxForWorker(parent, w);
      const c2 = sandboxForWorker(c1, w);
      expect([c1.depth, c2.depth]).toEqual([1, 2]);
      expect(await c2.read('/src/a.ts')).toBe('a');
      let error;
      try {
        sandboxForWorker(c2, w);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WorkerSandboxError);
      expect(error.code).toBe('DEPTH_EXCEEDED');
      expect(error.worker).toBe('narrow');
      expect(error.message).toContain("Worker 'narrow'");
      expect(error.message).toContain('maxDepth 2');
      expect(error.message).toContain('level 3');
    });

    test('zone selections count too', async () => {
      const project = path.join(base, 'zdeep');
      write(path.join(project, 'golem-forge.config.yaml'), 'sandbox:\n  zones:\n    data: {}\ndelegation: {maxDepth: 1}\n');
      const parent = await createSandboxFromConfig(await loadProgramConfig(path.join(project, 'golem-forge.config.yaml')));
      const w = await workerFile('z', ['name: z', 'sandbox: {zones: [{name: data}]}']);
      const c1 = sandboxForWorker(parent, w);
      expect(() => sandboxForWorker(c1, w)).toThrow(expect.objectContaining({ code: 'DEPTH_EXCEEDED' }));
    });

    test('restrict() chains on the sandbox itself are bounded the same way', async () => {
      const parent = await configParent('delegation: {maxDepth: 3}\n');
      const c3 = parent.restrict({}).restrict({ restrict: '/src' }).restrict({ readonly: true });
      expect(c3.depth).toBe(3);
      let error;
      try {
        c3.restrict({});
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WorkerSandboxError);
      expect(error.code).toBe('DEPTH_EXCEEDED');
    });

    test('the default is 5', async () => {
      const parent = await configParent('');
      expect(parent.describe().maxDepth).toBe(5);
      let s = parent;
      for (let i = 0; i < 5; i++) s = s.restrict({});
      expect(s.depth).toBe(5);
      expect(() => s.restrict({})).toThrow(WorkerSandboxError);
    });
  });
});
