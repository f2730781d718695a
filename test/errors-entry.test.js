'use strict';

// `mount-sandbox/errors`: the error classes alone, for browser code (golem-forge's core is also
// built into a Chrome extension). Bundled for the browser it needs nothing from Node, and it gives
// the very classes the main entry throws.
const path = require('path');
const vm = require('vm');
const { execFileSync } = require('child_process');
const esbuild = require('esbuild');

const ROOT = path.join(__dirname, '..');

function bundleForBrowser(format) {
  return esbuild.buildSync({
    stdin: { contents: "export * from 'mount-sandbox/errors';", resolveDir: ROOT, sourcefile: 'entry.js' },
    bundle: true,
    platform: 'browser',
    format,
    globalName: format === 'iife' ? 'mountSandboxErrors' : undefined,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
}

test('bundles for the browser from nothing but the errors files', () => {
  const result = bundleForBrowser('esm');
  expect(result.errors).toEqual([]);
  expect(result.warnings).toEqual([]);
  const inputs = Object.keys(result.metafile.inputs).filter((f) => f !== 'entry.js');
  expect(inputs.sort()).toEqual(['lib/sandbox-errors.js', 'lib/sandbox-errors.mjs']);
  const code = result.outputFiles[0].text;
  expect(code).not.toMatch(/\bnode:/);
  expect(code).not.toMatch(/\brequire\(\s*["']/);
  expect(code).not.toMatch(/\bprocess\./);
});

test('the bundle runs where there is no require, process or Buffer', () => {
  const code = bundleForBrowser('iife').outputFiles[0].text;
  const context = vm.createContext({});
  vm.runInContext(`${code}
    const m = mountSandboxErrors;
    const notFound = new m.NotFoundError('/a.txt');
    const unsupported = new m.UnsupportedPlatformError('no addon here', { cause: new Error('dlopen') });
    globalThis.result = {
      names: Object.keys(m).sort(),
      isSandboxError: m.isSandboxError(notFound) && !m.isSandboxError({ code: 'FAKE' }),
      chain: notFound instanceof m.SandboxError && notFound instanceof Error,
      code: notFound.code,
      llm: notFound.toLLMMessage(),
      readOnly: new m.ReadOnlyError('/x', ['/out']).toLLMMessage(),
      unsupported: [unsupported.code, unsupported.cause.message, unsupported instanceof m.SandboxError],
      noNode: typeof require === 'undefined' && typeof process === 'undefined' && typeof Buffer === 'undefined',
    };`, context);
  const { result } = context;
  expect(result.noNode).toBe(true);
  expect(result.names).toEqual(Object.keys(require('mount-sandbox/errors')).sort());
  expect(result.isSandboxError).toBe(true);
  expect(result.chain).toBe(true);
  expect(result.code).toBe('NOT_FOUND');
  expect(result.llm).toBe('File not found: /a.txt. Please check the path and try again.');
  expect(result.readOnly).toBe('Cannot write to /x: this location is read-only. Writable locations: /out.');
  expect(result.unsupported).toEqual(['UNSUPPORTED_PLATFORM', 'dlopen', true]);
});

test('require: the main entry exports the same class objects as mount-sandbox/errors', () => {
  const main = require('mount-sandbox');
  const errors = require('mount-sandbox/errors');
  expect(Object.keys(errors).length).toBeGreaterThan(20);
  for (const [name, value] of Object.entries(errors)) expect([name, main[name]]).toEqual([name, value]);
  expect(main.NotFoundError).toBe(errors.NotFoundError);
});

test('import: both entries, and require, give the same class objects', () => {
  const script = `
    import * as main from 'mount-sandbox';
    import * as errors from 'mount-sandbox/errors';
    import { createRequire } from 'node:module';
    const cjs = createRequire(import.meta.url)('mount-sandbox/errors');
    const names = Object.keys(cjs);
    const same = names.filter((n) => main[n] === cjs[n] && errors[n] === cjs[n]);
    console.log(JSON.stringify({ names, same, notFound: main.NotFoundError === errors.NotFoundError }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  }));
  expect(out.same).toEqual(out.names);
  expect(out.notFound).toBe(true);
});
