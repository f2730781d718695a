'use strict';

// Every code block in README.md and docs/*.md runs as written: JavaScript as a module file in an
// empty directory where 'mount-sandbox' resolves to this package, shell in a clone of the
// repository (the README's own setting for its commands), YAML as a program config file.
// TypeScript is code for golem-forge: each block is one of the files of test/golem-forge/src,
// which test/golem-forge.test.js typechecks against golem-forge's types and runs. JSON must parse
// (the MCP client configurations live in mcp/README.md, which test/mcp-docs.test.js checks). A
// block the test cannot run carries `<!-- not run by test/readme.test.js: reason -->` on the line
// before it; blocks marked `text` (or nothing) are prose, such as directory layouts.
//
// A JavaScript block whose info string names a test runner after the language, ```js jest or
// ```js vitest, is a test file for that runner: it runs under the real runner from this
// repository's node_modules, alone in a temp project of its own (where 'mount-sandbox' resolves
// to this package), with a config written there (so nothing of this repository's Jest config
// applies), its own cache directory and TMPDIR; the runner must report every test passed, and at
// least one. A Jest block is a CommonJS file using Jest's globals; a Vitest block an ES module
// importing from 'vitest'.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { loadProgramConfig, createSandboxFromConfig } = require('..');

const ROOT = path.join(__dirname, '..');
const NOT_RUN = /^<!-- not run by test\/readme\.test\.js: (.+) -->$/;
const MAX_NOT_RUN_PER_FILE = 2;
const MAX_NOT_RUN = 4;
const PROSE = new Set(['', 'text']); // directory layouts and the like
const JEST = require.resolve('jest/bin/jest');
const VITEST = path.join(path.dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const GOLEM_FORGE_SRC = path.join(__dirname, 'golem-forge', 'src');

jest.setTimeout(60000);

// README.md and every page of docs/, as paths relative to the repository.
const DOCS = ['README.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const readDoc = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');

function docBlocks(file) {
  const lines = readDoc(file).split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(?: +(\S+))?$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code block`);
    const marker = NOT_RUN.exec(lines[i - 1] || '');
    blocks.push({
      file,
      lang: open[1],
      runner: open[2] || null,
      line: i + 1,
      code: lines.slice(i + 1, end).join('\n') + '\n',
      notRun: marker && marker[1],
    });
    i = end;
  }
  return blocks;
}

const blocks = DOCS.flatMap(docBlocks);
const where = (b) => `${b.file}:${b.line}`;
const runnable = blocks.filter((b) => !b.notRun && !PROSE.has(b.lang));
const named = (lang, runner = null) =>
  runnable.filter((b) => b.lang === lang && b.runner === runner).map((b) => [where(b), b]);

let scratch;
beforeAll(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-readme-'));
});
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function freshDir(block) {
  return fs.mkdtempSync(path.join(scratch, `${block.file.replace(/\W/g, '-')}-${block.line}-`));
}

test('every block is run, or says why not (and few say so)', () => {
  const notRun = blocks.filter((b) => b.notRun);
  expect(notRun.length).toBeLessThanOrEqual(MAX_NOT_RUN);
  const crowded = DOCS.filter((file) => notRun.filter((b) => b.file === file).length > MAX_NOT_RUN_PER_FILE);
  expect(crowded).toEqual([]);
  const known = (b) => (b.lang === 'js' ? [null, 'jest', 'vitest'] : ['sh', 'yaml', 'ts', 'json'].includes(b.lang) ? [null] : []).includes(b.runner);
  const unknown = runnable.filter((b) => !known(b));
  expect(unknown.map((b) => `${where(b)} (${[b.lang, b.runner].filter(Boolean).join(' ')})`)).toEqual([]);
  expect(named('js').length).toBeGreaterThanOrEqual(5);
  expect(named('js', 'jest').length).toBeGreaterThanOrEqual(1);
  expect(named('js', 'vitest').length).toBeGreaterThanOrEqual(1);
  expect(named('sh').length).toBeGreaterThanOrEqual(1);
  expect(named('ts').length).toBeGreaterThanOrEqual(2);
});

// The .ts files (not declarations) under test/golem-forge/src.
function golemForgeFiles(dir = GOLEM_FORGE_SRC) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return golemForgeFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

// The first line names the golem-forge file; the rest must match to the character.
test.each(named('ts'))('%s is a file of test/golem-forge/src, as test/golem-forge.test.js checks it', (_, block) => {
  const firstLine = (text) => text.slice(0, text.indexOf('\n'));
  const file = golemForgeFiles().find((f) => firstLine(fs.readFileSync(f, 'utf8')) === firstLine(block.code));
  expect(file && path.relative(ROOT, file)).toEqual(expect.any(String));
  expect(block.code).toBe(fs.readFileSync(file, 'utf8'));
});

test.each(named('js'))('%s runs as an ES module in an empty directory', (_, block) => {
  const dir = freshDir(block);
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'mount-sandbox'));
  const file = path.join(dir, 'example.mjs');
  fs.writeFileSync(file, block.code);
  const result = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8', timeout: 45000 });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
});

// The runner's command line for a test file in `dir`, writing its JSON report to `report`. Jest
// keeps its defaults (babel-jest included) but for where it looks and where it caches.
const RUNNERS = {
  jest: (dir, report) => ({
    file: 'readme.test.js',
    args: [
      JEST,
      '--config',
      JSON.stringify({
        rootDir: dir,
        testMatch: ['<rootDir>/readme.test.js'],
        cacheDirectory: path.join(dir, 'jest-cache'),
        watchman: false,
      }),
      '--ci',
      '--runInBand',
      '--json',
      `--outputFile=${report}`,
    ],
  }),
  vitest: (dir, report) => {
    const config = path.join(dir, 'vitest.config.mjs');
    fs.writeFileSync(config, "export default { cacheDir: 'vite-cache', test: { include: ['readme.test.mjs'] } };\n");
    return {
      file: 'readme.test.mjs',
      args: [VITEST, 'run', '--root', dir, '--config', config, '--reporter=json', `--outputFile=${report}`],
      links: ['vitest'], // its test file imports from 'vitest'
    };
  },
};

const testFiles = [...named('js', 'jest'), ...named('js', 'vitest')].map(([name, b]) => [name, b.runner, b]);

test.each(testFiles)('%s passes as a test file under real %s', (_, runner, block) => {
  const dir = freshDir(block);
  const tmp = path.join(dir, 'tmp');
  const report = path.join(dir, 'report.json');
  fs.mkdirSync(tmp);
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "readme-example", "private": true }\n');
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'mount-sandbox'));
  const { file, args, links = [] } = RUNNERS[runner](dir, report);
  for (const name of links) fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(dir, 'node_modules', name));
  fs.writeFileSync(path.join(dir, file), block.code);
  const result = spawnSync(process.execPath, args, {
    cwd: dir,
    encoding: 'utf8',
    timeout: 45000,
    env: { ...process.env, TMPDIR: tmp, CI: 'true', NO_COLOR: '1' },
  });
  const output = `exit ${result.status}:\n${result.stdout}\n${result.stderr}`;
  if (!fs.existsSync(report)) throw new Error(`no report from ${runner}, ${output}`);
  const r = JSON.parse(fs.readFileSync(report, 'utf8'));
  const counts = {
    suites: r.numTotalTestSuites,
    failedSuites: r.numFailedTestSuites,
    failed: r.numFailedTests,
    notPassed: r.numTotalTests - r.numPassedTests,
  };
  if (counts.failed + counts.failedSuites + counts.notPassed > 0 || result.status !== 0) {
    throw new Error(`${output}\nreport: ${JSON.stringify(r.testResults.map((t) => t.message), null, 2)}`);
  }
  expect(counts).toEqual({ suites: 1, failedSuites: 0, failed: 0, notPassed: 0 });
  expect(r.numPassedTests).toBeGreaterThanOrEqual(1);
  expect(result.status).toBe(0);
});

// Each command line on its own (an `a && b` that fails midway would not stop `sh -e`), in order,
// stopping at the first that fails.
function commandLines(code) {
  return code
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));
}

test.each(named('sh'))('%s runs in the repository, each command succeeding', (_, block) => {
  for (const line of commandLines(block.code)) {
    const result = spawnSync('sh', ['-c', line], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 45000,
      // npx must find the package here, never fetch one.
      env: { ...process.env, npm_config_offline: 'true' },
    });
    if (result.status !== 0) throw new Error(`${line}\nexit ${result.status}:\n${result.stdout}\n${result.stderr}`);
  }
});

test('every JSON block parses as JSON', () => {
  for (const [name, block] of named('json')) {
    let problem = null;
    try {
      JSON.parse(block.code);
    } catch (error) {
      problem = error.message;
    }
    expect([name, problem]).toEqual([name, null]);
  }
});

test.each(named('yaml'))('%s is a valid program config whose sandbox can be made', async (_, block) => {
  const project = path.join(freshDir(block), 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'golem-forge.config.yaml'), block.code);
  const config = await loadProgramConfig(path.join(project, 'golem-forge.config.yaml'));
  expect(config.sandbox).not.toBeNull();
  expect(await createSandboxFromConfig(config)).not.toBeNull();
});

// The links between the pages: every relative link in README.md and docs/*.md leads to a file or
// directory of the repository, and every #anchor to a heading of the page it names, as GitHub
// makes anchors (lower case, punctuation but `-` and `_` dropped, spaces as `-`, `-1`, `-2` for a
// repeated heading). Code blocks and code spans hold no links.
function proseOf(text) {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`]*`/g, '');
}

// A heading's code spans count, without their backticks.
function headingAnchors(file) {
  const seen = new Map();
  const anchors = new Set();
  const text = fs.readFileSync(file, 'utf8').replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  for (const line of text.split('\n')) {
    const heading = /^#{1,6} +(.+?) *#*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) || 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

const links = DOCS.flatMap((file) =>
  [...proseOf(readDoc(file)).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => [file, target]),
);

test('the pages link to one another', () => {
  expect(links.length).toBeGreaterThan(20);
  expect(links.filter(([file]) => file === 'README.md').map(([, target]) => target)).toEqual(
    expect.arrayContaining(['docs/README.md', 'docs/api.md', 'docs/security.md']),
  );
});

test.each(links)('%s: the link %s resolves', (file, target) => {
  const [pathPart, anchor] = target.split('#');
  const dest = pathPart ? path.join(ROOT, path.dirname(file), decodeURI(pathPart)) : path.join(ROOT, file);
  expect(path.relative(ROOT, dest).startsWith('..')).toBe(false);
  expect([target, fs.existsSync(dest)]).toEqual([target, true]);
  if (anchor !== undefined) {
    expect(dest.endsWith('.md')).toBe(true);
    expect([...headingAnchors(dest)]).toContain(anchor);
  }
});

// Each page of docs/ opens with its title, a sentence or two, and a contents list naming every
// section (## headings) of the page in order.
test.each(DOCS.filter((f) => f !== 'README.md'))('%s opens with a contents list of its sections', (file) => {
  const text = readDoc(file);
  expect(text.startsWith('# ')).toBe(true);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  const sections = [...prose.matchAll(/^## (.+)$/gm)].map((m) => m[1]).filter((h) => h !== 'Contents');
  const contents = /^## Contents\n\n((?:[ ]*- \[.*\n)+)/m.exec(text);
  expect(contents).not.toBeNull();
  const listed = [...contents[1].matchAll(/^- \[(.+)\]\(#[^)]+\)$/gm)].map((m) => m[1]);
  expect(listed).toEqual(sections);
  expect(text.indexOf('## Contents')).toBeLessThan(text.indexOf(`## ${sections[0]}`));
});

// The README's two set-up commands: the first installs what `.ci/run` installs for the build and
// runs the README's own `npm install && npm run build`, then the demo; the second is the test
// command `.ci/run` runs.
test('the set-up commands are the ones .ci/run runs', () => {
  const setUp = blocks.find((b) => b.file === 'README.md' && b.lang === 'sh');
  const [first, second, ...rest] = commandLines(setUp.code).map((line) => line.replace(/ +#.*$/, ''));
  expect(rest).toEqual([]);
  const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
  const ciLines = ci.split('\n').map((line) => line.trim());
  expect(ciLines).toContain(second);
  expect(second).toBe('npm test');
  expect(first).toMatch(/ && npm install && npm run build && npm start$/);
  expect(ciLines.some((line) => line.startsWith('npm install'))).toBe(true);
  expect(ciLines.some((line) => line.startsWith('npm run build'))).toBe(true);
  expect(require('../package.json').scripts.start).toBe('node example/demo.js');
  const packages = /apt-get install -y ([^&]+)&&/.exec(first)[1].trim().split(/\s+/);
  const ciInstalled = new Set([...ci.replace(/\\\n\s*/g, ' ').matchAll(/apt-get install -y --no-install-recommends ([^\n]+)/g)]
    .flatMap((m) => m[1].trim().split(/\s+/)));
  expect(packages.filter((p) => !ciInstalled.has(p))).toEqual([]);
});
