'use strict';

// The public surface is written once: the export lists in lib/index.js and lib/sandbox-errors.js,
// from which scripts/generate-esm.js writes the ESM entries, and the hand-written declarations,
// which these tests hold to the code: the same export names both ways, and every documented
// @default equal to what the code does when the option is left out.
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { execFileSync, spawnSync } = require('child_process');
const ts = require('typescript');

const ROOT = path.join(__dirname, '..');
const LIB = path.join(ROOT, 'lib');

function program(files) {
  return ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    types: [],
  });
}

// Names a declaration file exports as values (classes, functions, constants), not types only.
function declaredValueNames(file) {
  const p = program([file]);
  const checker = p.getTypeChecker();
  const valueOf = (s) => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
  return checker.getExportsOfModule(checker.getSymbolAtLocation(p.getSourceFile(file)))
    .filter((s) => (valueOf(s).flags & ts.SymbolFlags.Value) !== 0)
    .map((s) => s.name)
    .sort();
}

async function esmNames(file) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e',
    `console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(file)}))))`], { encoding: 'utf8' });
  return JSON.parse(out).sort();
}

test('the committed ESM entries are what scripts/generate-esm.js writes', () => {
  const { generated } = require('../scripts/generate-esm');
  for (const { file, source } of generated()) {
    expect([path.basename(file), fs.readFileSync(file, 'utf8')]).toEqual([path.basename(file), source]);
  }
});

test.each([
  ['index.d.ts', 'index.js'],
  ['sandbox-errors.d.ts', 'sandbox-errors.js'],
])('%s declares exactly what %s exports', (declarations, code) => {
  const runtime = Object.keys(require(path.join(LIB, code))).sort();
  expect(declaredValueNames(path.join(LIB, declarations))).toEqual(runtime);
});

test.each([
  ['index.d.mts', 'index.mjs'],
  ['sandbox-errors.d.mts', 'sandbox-errors.mjs'],
])('%s declares exactly what %s exports', async (declarations, code) => {
  const runtime = await esmNames(path.join(LIB, code));
  expect(runtime).toContain('default');
  expect(declaredValueNames(path.join(LIB, declarations))).toEqual(runtime);
});

// Each documented interface and the defaults the code applies when an option is left out.
function runtimeDefaults() {
  const { parseOptions } = require('../lib/exec/exec');
  const { normalizeConfig } = require('../lib/config/config');
  const { grepRequest } = require('../lib/search/search');
  const exec = parseOptions({});
  const grep = grepRequest('x', {});
  const saved = process.env.MOUNT_SANDBOX_RESOLVER;
  delete process.env.MOUNT_SANDBOX_RESOLVER; // `npm test` runs one pass with it set
  try {
    const config = normalizeConfig({ root: '/x', mounts: [{ source: '/y', target: '/y' }] });
    return {
      ExecOptions: {
        cwd: exec.cwd,
        timeoutMs: exec.timeoutMs,
        maxOutputBytes: exec.maxOutputBytes,
        namespaces: exec.namespaces,
        allowWeakerEnforcement: exec.allowWeaker,
        workspace: exec.workspace,
        protectSharedLinks: exec.protectSharedLinks,
        changes: exec.changes,
        holdAsk: exec.holdAsk,
      },
      ExecLimits: { processes: exec.limits.processes, tmpBytes: exec.limits.tmpBytes },
      GrepOptions: {
        path: grep.path,
        literal: grep.native.literal,
        ignoreCase: grep.native.ignoreCase,
        word: grep.native.word,
        invert: grep.native.invert,
        output: grep.native.output,
        spans: grep.native.columns,
        context: grep.native.before === grep.native.after ? grep.native.before : NaN, // both, unless before or after is given
        maxResults: grep.native.maxResults,
        maxLineBytes: grep.native.maxLineBytes,
        gitignore: grep.native.ignoreFiles,
        hidden: grep.native.hidden,
        maxBytes: grep.native.maxBytes,
        maxCpuMs: grep.native.maxCpuMs,
      },
      Mount: { allowPseudoFilesystem: config.mounts[0].allowPseudoFilesystem },
      MountSandboxConfig: {
        readonly: config.readonly,
        allowPseudoFilesystem: config.allowPseudoFilesystem,
        maxReadBytes: config.maxReadBytes,
        resolver: config.resolver,
        maxDepth: config.maxDepth,
      },
    };
  } finally {
    if (saved !== undefined) process.env.MOUNT_SANDBOX_RESOLVER = saved;
  }
}

// The package's own declaration files an entry's declarations are read from: the entry and what
// it re-exports (lib/index.d.ts re-exports lib/types/*.d.ts and lib/sandbox-errors.d.ts).
function declarationFiles(entry) {
  return program([entry]).getSourceFiles().map((s) => s.fileName)
    .filter((f) => path.resolve(f).startsWith(LIB + path.sep));
}

// { Interface: { member: value } } from the @default tags of an entry's declaration files.
function documentedDefaults(entry) {
  const found = {};
  const visit = (node) => {
    if (ts.isPropertySignature(node)) {
      for (const tag of ts.getJSDocTags(node)) {
        if (tag.tagName.text !== 'default') continue;
        const owner = node.parent.name ? node.parent.name.text : '(anonymous)';
        found[owner] ??= {};
        found[owner][node.name.text] = vm.runInNewContext(ts.getTextOfJSDocComment(tag.comment));
      }
    }
    ts.forEachChild(node, visit);
  };
  for (const file of declarationFiles(entry)) {
    visit(ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
  }
  return found;
}

test('every documented default is the one the code applies, and every default is documented', () => {
  expect(documentedDefaults(path.join(LIB, 'index.d.ts'))).toEqual(runtimeDefaults());
});

test('a strict TypeScript consumer compiles, CommonJS and ESM, and satisfies golem-forge\'s contract', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const out = execFileSync(process.execPath, [tsc, '-p', path.join(__dirname, 'types')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(out.trim()).toBe('');
});

test('the facade typechecks against the native binding\'s declaration', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const out = execFileSync(process.execPath, [tsc, '-p', path.join(LIB, 'tsconfig.json')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(out.trim()).toBe('');
});

test('@arethetypeswrong/cli finds no problem in the packed package', () => {
  const attw = path.join(path.dirname(require.resolve('@arethetypeswrong/cli/package.json')), 'dist', 'index.js');
  // It exits non-zero when it finds problems; the report is on stdout either way. It checks the
  // types alone, so the tarball it packs need not carry the prebuilt binaries (prepack's override).
  const run = spawnSync(process.execPath, [attw, '--pack', '.', '--format', 'json'], {
    cwd: ROOT,
    env: { ...process.env, MSB_PACK_SOURCE_ONLY: '1' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const { problems } = JSON.parse(run.stdout);
  expect(Object.values(problems).flat()).toEqual([]);
  expect(run.status).toBe(0);
}, 120000);
