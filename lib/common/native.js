'use strict';

// Finds and loads the native addon on first use, never at import, so that the error classes and
// isSupported() work on every platform. Order: MOUNT_SANDBOX_ADDON (the sanitizer build uses it),
// then a local build in build/Release/ (a developer's rebuild wins), then the prebuilt binary in
// prebuilds/<platform>-<arch>/, whose prebuild.json says the glibc it needs (checked before
// loading, so that a too old one is named rather than left to the dynamic loader's message).
const { fs, path } = require('./builtins');
const { UnsupportedPlatformError } = require('../sandbox-errors');
const { execBlockedReason } = require('../exec/apparmor');

const PREBUILT_TARGETS = ['linux-x64', 'linux-arm64'];
const BUILD_COMMAND = 'npm run build --prefix node_modules/mount-sandbox';
const BUILD_PACKAGES = 'apt-get update && apt-get install -y cmake g++ make libyaml-cpp-dev libre2-dev libpcre2-dev';

const SOLUTIONS = {
  platform: 'run on Linux x64 or arm64 with glibc, where the package ships prebuilt binaries ' +
    '(on macOS or Windows: in a Linux container or VM)',
  build: `build from source on Linux: install the build tools (${BUILD_PACKAGES}, with sudo unless root), ` +
    `then run \`${BUILD_COMMAND}\``,
  reinstall: 'install a tarball that carries binaries for this system: `npm pack` in a clone where ' +
    '`npm run build` ran, on a machine of the same architecture and a glibc no newer than this one\'s, or ' +
    '`npm run prebuilds && npm pack` in a clone (as root on Debian) for linux-x64 and linux-arm64 from glibc 2.31; ' +
    'a git install and a source-only tarball carry none',
  fallback: 'or fall back: call isSupported() first and use another sandbox implementation when it says false',
  external: 'mark mount-sandbox as external in your bundler (esbuild --external:mount-sandbox, ' +
    'Vite/Rollup build.rollupOptions.external, webpack externals) so that it loads from node_modules',
};

// Where the package's own files are, or null when this file was bundled into something else (its
// binaries are then not beside it).
let packageDir;

function packageRoot() {
  if (packageDir === undefined) packageDir = findPackageRoot();
  return packageDir;
}

function findPackageRoot() {
  if (typeof __dirname !== 'string') return null;
  const root = path.join(__dirname, '..', '..');
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    return manifest.name === 'mount-sandbox' ? root : null;
  } catch {
    return null;
  }
}

// This system's glibc version ('2.36'), or null: musl's Node reports none.
function glibcRuntime() {
  const report = /** @type {{ header?: { glibcVersionRuntime?: string } } | undefined} */ (process.report?.getReport?.());
  return report?.header?.glibcVersionRuntime || null;
}

// prebuilds/<target>/prebuild.json, which `npm pack` writes beside the binaries it packs
// (scripts/check-pack.js): the set ('full' or 'this-machine') and the glibc it needs.
/** @returns {{ set?: string, glibc?: string } | null} */
function packedNeeds(file) {
  try {
    return JSON.parse(fs.readFileSync(path.join(path.dirname(file), 'prebuild.json'), 'utf8'));
  } catch {
    return null;
  }
}

function olderThan(a, b) {
  const [x, y] = [a, b].map((v) => String(v).split('.').map(Number));
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  }
  return false;
}

// Why the packed binary in `file` cannot load on this glibc, or null when it can (or says nothing).
function glibcTooOld(file) {
  const meta = packedNeeds(file);
  const runtime = glibcRuntime();
  if (!meta?.glibc || runtime === null || !olderThan(runtime, meta.glibc)) return null;
  const which = meta.set === 'this-machine' ? 'packed from a build on another machine' : 'prebuilt';
  return `its binary for ${process.platform}-${process.arch} (${which}) needs glibc ${meta.glibc} or newer, ` +
    `and this system has glibc ${runtime}`;
}

function candidates(dir, file, envName) {
  const list = [];
  if (process.env[envName]) list.push(path.resolve(process.env[envName]));
  list.push(path.join(dir, 'build', 'Release', file));
  list.push(path.join(dir, 'prebuilds', `${process.platform}-${process.arch}`, file));
  return list;
}

function unsupported(reason, solutions, cause) {
  return new UnsupportedPlatformError(reason, { solutions: solutions.map((s) => SOLUTIONS[s]), cause });
}

// The addon, or the UnsupportedPlatformError saying why not. Pure: no caching.
/** @returns {import('../binding.d.ts').NativeBinding | UnsupportedPlatformError} */
function tryLoad() {
  if (process.platform !== 'linux') {
    return unsupported(`it enforces with Linux descriptors (openat2, O_PATH, Landlock), and this is ${process.platform}`,
      ['platform', 'fallback']);
  }
  const dir = packageRoot();
  if (dir === null) {
    return unsupported('it was bundled, so its native binaries are not beside it', ['external', 'fallback']);
  }
  const file = candidates(dir, 'mount_sandbox.node', 'MOUNT_SANDBOX_ADDON').find((f) => fs.existsSync(f));
  if (file === undefined) {
    const target = `${process.platform}-${process.arch}`;
    const built = ', and the addon was not built from source';
    if (!PREBUILT_TARGETS.includes(target)) {
      return unsupported(`no prebuilt binary for ${target}${built}`, ['platform', 'build', 'fallback']);
    }
    if (glibcRuntime() === null) {
      return unsupported(`the prebuilt binaries need glibc, and this system uses musl${built}`, ['platform', 'build', 'fallback']);
    }
    return unsupported(`no binary for ${target} was found${built}`, ['reinstall', 'build', 'fallback']);
  }
  const tooOld = glibcTooOld(file);
  if (tooOld !== null) return unsupported(tooOld, ['reinstall', 'build', 'fallback']);
  try {
    return require(file);
  } catch (cause) {
    // Typically a missing shared library or a too old glibc: the dlopen text is in `cause`.
    return unsupported('its native addon failed to load on this system', ['build', 'fallback'], cause);
  }
}

/** @type {import('../binding.d.ts').NativeBinding | Error | undefined} */
let loaded;

/** @returns {import('../binding.d.ts').NativeBinding} */
function addon() {
  if (loaded === undefined) loaded = tryLoad();
  if (loaded instanceof Error) throw loaded;
  return loaded;
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

let launcher;

// The exec launcher's path, or null when there is none to run.
function findLauncher() {
  if (launcher) return launcher;
  const dir = packageRoot();
  if (dir === null) return null;
  launcher = candidates(dir, 'msb-launch', 'MOUNT_SANDBOX_LAUNCHER').find(isExecutable) ?? null;
  return launcher;
}

function execSupport(launcherFile) {
  if (launcherFile === null) {
    return { supported: false, reason: 'the exec launcher msb-launch was not found beside the addon, or is not executable' };
  }
  // Ubuntu's AppArmor restriction: exec (namespaces "require") refuses until a profile allows it.
  const blocked = execBlockedReason(launcherFile);
  if (blocked !== null) return { supported: false, reason: blocked };
  // Then the launcher itself, under exec's defaults: user namespaces off by a sysctl, no Landlock.
  // Required here, not at the top: lib/exec/ needs this module's findLauncher.
  const { error } = require('../exec/probe').launcherProbe(launcherFile);
  if (error === undefined) return { supported: true };
  return { supported: false, reason: require('../exec/refusal').refusalReason(error, 'library') };
}

// { supported: true } or { supported: false, reason }; `exec` says the same for sandbox.exec()'s
// launcher. Loads the addon (once), because only loading proves it works.
function isSupported() {
  try {
    addon();
  } catch (error) {
    if (!(error instanceof UnsupportedPlatformError)) throw error;
    return { supported: false, reason: error.reason, exec: { supported: false, reason: error.reason } };
  }
  return { supported: true, exec: execSupport(findLauncher()) };
}

module.exports = { addon, isSupported, findLauncher, SOLUTIONS };
