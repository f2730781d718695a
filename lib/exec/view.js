'use strict';

// The command's view of the host for sandbox.exec(): which host paths it may read or write and
// where each appears in the root the launcher builds (the sandbox under its workspace, system
// directories at their own paths), its working directory, and the policy msb-launch receives.
const { fs, path } = require('../common/builtins');
const { ExecError } = require('../errors/from-codes');
const { isWithin } = require('../common/paths');

const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

// What every command sees of the host, read-only, at the same paths: programs and libraries, and
// of /etc only what a shell, git, node, python and a compiler were measured to read (strace), so
// not /etc/ssl/private, shadow or the host's other configuration.
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
const ETC_ENTRIES = [
  'alternatives', 'bash.bashrc', 'debian_version', 'gitconfig', 'group', 'hosts', 'inputrc',
  'ld.so.cache', 'localtime', 'magic', 'mime.types', 'nsswitch.conf', 'os-release', 'passwd',
  'profile', 'protocols', 'services', 'ssl/certs', 'ssl/openssl.cnf', 'terminfo', 'timezone',
];
// Name resolution, needed only with the network on; with an allowlist the launcher writes the
// command's own resolv.conf (naming the DNS stub) and hosts.
const ETC_NETWORK_ENTRIES = ['gai.conf', 'host.conf', 'resolv.conf'];
const ETC_FILTERED_ENTRIES = ['gai.conf', 'host.conf'];
const DEVICES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom'];

// Where a virtual path appears in the command's root.
const viewPath = (workspace, virtual) => (virtual === '/' ? workspace : `${workspace}${virtual}`);

// The working directory: a directory of the sandbox, checked through it (symlink rules and all),
// with the host directory and its identity, which the launcher checks again before entering it.
async function workingDirectory(sandbox, cwd, workspace) {
  const info = await sandbox.stat(cwd);
  if (!info.isDirectory) throw new ExecError(`cwd must be a directory: ${cwd}`, cwd, 'cwd');
  const host = sandbox.resolve(cwd);
  if (host === undefined || host === null) {
    throw new ExecError(
      `cwd ${cwd} is not inside a mount; use one of: ${sandbox.readablePaths().join(', ')}`, cwd, 'cwd',
    );
  }
  // A concurrent command may have swapped it since the check above.
  const id = await fs.promises.stat(host, { bigint: true }).catch(() => {
    throw new ExecError(`the working directory ${cwd} changed while the command was starting; refusing to run`, cwd, 'cwd-changed');
  });
  return { virtual: path.posix.resolve('/', cwd), view: viewPath(workspace, path.posix.resolve('/', cwd)), host, id: `${id.dev}:${id.ino}` };
}

// A mount whose target directory is missing where it would appear is created there, as Docker
// does, but only where the enclosing source is writable: said here, with the virtual paths.
function checkMountTargets(sandboxPaths) {
  const placed = sandboxPaths.filter((e) => e.target !== undefined);
  for (const mount of placed) {
    if (mount.target === '/') continue;
    const outer = placed
      .filter((e) => e !== mount && e.target !== mount.target && isWithin(mount.target, e.target))
      .sort((a, b) => b.target.length - a.target.length)[0];
    if (!outer || outer.access !== 'read') continue;
    const rel = outer.target === '/' ? mount.target : mount.target.slice(outer.target.length);
    if (!fs.existsSync(path.join(outer.path, rel))) {
      throw new ExecError(
        `mount target ${mount.target} does not exist in ${outer.target}, which is read-only, so the command cannot see the mount there: create the directory ${mount.target} or choose a target that exists`,
        mount.target, 'mount-target',
      );
    }
  }
}

const readable = (p) => ({ path: p, access: 'read', target: p });

// What every command may read to start at all, at the same paths as on the host.
// `network`: the host's network (true), an allowlist ('filtered'), or none.
function systemPaths(network) {
  const extra = network === true ? ETC_NETWORK_ENTRIES : network === 'filtered' ? ETC_FILTERED_ENTRIES : [];
  const etc = [...ETC_ENTRIES, ...extra].map((name) => `/etc/${name}`);
  return [...SYSTEM_PATHS, ...etc].map(readable);
}

// `network`: lib/exec/network.js networkLaunch(); its variables win over the caller's, which could
// only point clients at proxies the command cannot reach.
function launchPolicy(sandboxPaths, protectedPaths, opts, argv, cwd, tmp, network) {
  const env = { PATH: DEFAULT_PATH, HOME: '/tmp', TMPDIR: '/tmp', LANG: 'C.UTF-8', ...opts.env, ...network.env };
  return {
    argv,
    env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
    cwd: cwd.view,
    hostCwd: cwd.host,
    cwdId: cwd.id,
    paths: [
      ...systemPaths(network.listen ? 'filtered' : network.network),
      // Read by commands where the launcher cannot build their root (namespaces off).
      { path: '/proc', access: 'read' },
      ...opts.hostReadPaths.map(readable),
      ...DEVICES.map((p) => ({ path: p, access: 'device', target: p })),
      { path: tmp, access: 'write', target: '/tmp' },
      ...sandboxPaths.map((e) => (e.target === undefined ? e : { ...e, target: viewPath(opts.workspace, e.target) })),
      ...protectedPaths.map((p) => ({ path: p, access: 'protect' })),
    ],
    network: network.network,
    ...(network.listen ? { listen: network.listen } : {}),
    namespaces: opts.namespaces,
    allowWeaker: opts.allowWeaker,
    limits: opts.limits,
  };
}

module.exports = {
  DEFAULT_PATH,
  SYSTEM_PATHS,
  viewPath,
  workingDirectory,
  checkMountTargets,
  readable,
  systemPaths,
  launchPolicy,
};
