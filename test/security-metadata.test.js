'use strict';

// A rewrite must not widen who can read a file. `write`, `edit` and `copy` over an existing file
// replace it with a new inode: it keeps the old file's POSIX ACL and extended attributes as well
// as its mode and owner. `move` keeps the moved file's own, across filesystems too. Where one
// cannot be reproduced, the operation is refused with MetadataError (METADATA_NOT_KEPT) and
// nothing changes. Each attack is proved the way the issue states it: `nobody` runs `cat` on the
// result.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync, execFileSync } = require('child_process');
const lib = require('../lib');
const { createMountSandbox, SandboxError } = lib;
const { RESOLVERS, makeTempDir, removeDir, snapshotTree, testNeeding } = require('./helpers');

const LIB = JSON.stringify(path.join(__dirname, '..', 'lib'));
const isRoot = process.getuid && process.getuid() === 0;

function onPath(tool) {
  return spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
}

const TOOLS = ['setfacl', 'getfacl', 'setfattr', 'getfattr', 'setpriv', 'unshare'];
const missingTool = TOOLS.find((tool) => !onPath(tool));
const MISSING = !isRoot
  ? 'needs root (it runs `cat` as nobody and sets security.* attributes)'
  : missingTool ? `${missingTool} is not installed (apt-get install acl attr util-linux)` : null;
const withTools = testNeeding(MISSING);

// Needs a user namespace (where the process has no CAP_SYS_ADMIN over the host's filesystems)
// and a mount namespace (for a ramfs, which holds no extended attributes at all).
const canUnshareUser = MISSING === null &&
  spawnSync('unshare', ['--user', '--map-root-user', 'true'], { stdio: 'ignore' }).status === 0;
const canMountRamfs = MISSING === null &&
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'mount -t ramfs ramfs /mnt'], { stdio: 'ignore' })
    .status === 0;
const withUserns = testNeeding(MISSING ?? (canUnshareUser ? null : 'user namespaces are not available here'));
const withRamfs = testNeeding(MISSING ?? (canMountRamfs ? null : 'a ramfs cannot be mounted here'));

const otherDevice = fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').dev !== fs.statSync(os.tmpdir()).dev;
const withOtherDevice = testNeeding(MISSING ?? (otherDevice ? null : '/dev/shm is not another filesystem than the temp dir'));

const run = (cmd, ...args) => execFileSync(cmd, args, { encoding: 'utf8' });
const setfacl = (file, ...args) => run('setfacl', ...args, file);
const setfattr = (file, name, value) => run('setfattr', '-n', name, '-v', value, file);

// Everything the kernel says about who may do what with the file: its mode and owner, and every
// extended attribute (system.posix_acl_access and security.* included), as raw hex values.
function metadataOf(file) {
  const st = fs.statSync(file);
  const xattrs = run('getfattr', '--absolute-names', '-d', '-m', '-', '-e', 'hex', file)
    .split('\n').filter((line) => line !== '' && !line.startsWith('# file:')).sort();
  return { mode: (st.mode & 0o7777).toString(8), uid: st.uid, gid: st.gid, xattrs };
}

function aclOf(file) {
  return run('getfacl', '--absolute-names', '--omit-header', file);
}

function nobodyReads(file) {
  return spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'cat', file],
    { stdio: 'ignore' }).status === 0;
}

// A temp dir that `nobody` may traverse (mkdtemp makes it 0700), with `root` in it.
function openLayout() {
  const base = makeTempDir();
  const root = path.join(base, 'root');
  fs.mkdirSync(root);
  fs.chmodSync(base, 0o755);
  fs.chmodSync(root, 0o755);
  return { base, root };
}

// A 0644 file that the ACL `user:nobody:---` keeps from nobody (and only that ACL).
function privateFile(file, content = 'old secret') {
  fs.writeFileSync(file, content, { mode: 0o644 });
  fs.chmodSync(file, 0o644);
  setfacl(file, '-m', 'u:nobody:---');
}

async function expectMetadataRefusal(dir, fn) {
  const before = snapshotTree(dir);
  let err;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(SandboxError);
  expect(err.code).toBe('METADATA_NOT_KEPT');
  expect(err).toBeInstanceOf(lib.MetadataError);
  expect(err.message).not.toContain(dir);
  expect(err.toLLMMessage()).not.toContain(dir);
  expect(snapshotTree(dir)).toEqual(before);  // nothing replaced, no temporary left
  return err;
}

describe.each(RESOLVERS)('a rewrite keeps the ACL and extended attributes (%s resolver)', (resolver) => {
  let base;
  let root;
  let sandbox;
  beforeEach(() => {
    ({ base, root } = openLayout());
    sandbox = createMountSandbox({ root, resolver });
  });
  afterEach(() => removeDir(base));

  withTools('the harness: nobody reads a plain 0644 file, not one whose ACL excludes nobody', () => {
    fs.writeFileSync(path.join(root, 'plain.txt'), 'x', { mode: 0o644 });
    privateFile(path.join(root, 'secret.txt'));
    expect(nobodyReads(path.join(root, 'plain.txt'))).toBe(true);
    expect(nobodyReads(path.join(root, 'secret.txt'))).toBe(false);
  });

  const rewrites = {
    write: (sb, p) => sb.write(p, 'new secret'),
    writeBinary: (sb, p) => sb.writeBinary(p, Buffer.from('new secret')),
    edit: (sb, p) => sb.edit(p, 'old', 'new'),
    'copy over it': async (sb, p) => {
      await sb.write('/incoming.txt', 'new secret');
      await sb.copy('/incoming.txt', p, { overwrite: true });
    },
  };

  for (const name of Object.keys(rewrites)) {
    withTools(`${name}: the ACL user:nobody:--- stays and nobody cannot read the new contents`, async () => {
      const file = path.join(root, 'secret.txt');
      privateFile(file);
      const before = metadataOf(file);
      const acl = aclOf(file);
      await rewrites[name](sandbox, '/secret.txt');
      expect(fs.readFileSync(file, 'utf8')).toBe('new secret');
      expect(aclOf(file)).toBe(acl);
      expect(metadataOf(file)).toEqual(before);
      expect(nobodyReads(file)).toBe(false);
    });

    withTools(`${name}: user.* attributes stay`, async () => {
      const file = path.join(root, 'secret.txt');
      fs.writeFileSync(file, 'old secret', { mode: 0o640 });
      setfattr(file, 'user.origin', 'https://example.invalid/a');
      setfattr(file, 'user.empty', '""');
      setfattr(file, 'user.big', `0x${'ab'.repeat(3000)}`);
      const before = metadataOf(file);
      await rewrites[name](sandbox, '/secret.txt');
      expect(fs.readFileSync(file, 'utf8')).toBe('new secret');
      expect(metadataOf(file)).toEqual(before);
    });
  }

  // Setting an ACL sets the mode's group bits to its mask, and chmod sets the mask: both must end
  // as they were, however the entries and the mask relate.
  for (const [what, mode, args] of [
    ['a named user granted read, mask r--', 0o600, ['-m', 'u:nobody:r--']],
    ['a named group and a mask narrower than the entries', 0o640, ['-m', 'u:nobody:rw-,g:nogroup:rw-,m::r--']],
    ['an empty mask', 0o664, ['-m', 'u:nobody:rw-,m::---']],
    ['an owner-only file with a named user', 0o600, ['-m', 'u:daemon:rw-,m::rw-']],
  ]) {
    withTools(`write: ${what} ends with the same ACL and mode`, async () => {
      const file = path.join(root, 'f.txt');
      fs.writeFileSync(file, 'old');
      fs.chmodSync(file, mode);
      setfacl(file, ...args);
      const before = metadataOf(file);
      const acl = aclOf(file);
      const readable = nobodyReads(file);
      await sandbox.write('/f.txt', 'new');
      expect(aclOf(file)).toBe(acl);
      expect(metadataOf(file)).toEqual(before);
      expect(nobodyReads(file)).toBe(readable);
    });
  }

  // A new file in a directory with a default ACL inherits it; the rewrite's reference is the old
  // file, not the directory.
  withTools('in a directory whose default ACL lets nobody read, a file without an ACL stays without one', async () => {
    const dir = path.join(root, 'shared');
    fs.mkdirSync(dir, { mode: 0o755 });
    setfacl(dir, '-d', '-m', 'u:nobody:r--');
    const plain = path.join(dir, 'plain.txt');
    fs.writeFileSync(plain, 'old secret');
    setfacl(plain, '-b');  // no ACL: 0640 root:root keeps nobody out
    fs.chmodSync(plain, 0o640);
    const own = path.join(dir, 'own.txt');
    privateFile(own);
    const before = { plain: metadataOf(plain), own: metadataOf(own) };
    expect(nobodyReads(plain)).toBe(false);
    await sandbox.write('/shared/plain.txt', 'new secret');
    await sandbox.edit('/shared/own.txt', 'old', 'new');
    expect({ plain: metadataOf(plain), own: metadataOf(own) }).toEqual(before);
    expect(nobodyReads(plain)).toBe(false);
    expect(nobodyReads(own)).toBe(false);
    // A new file still inherits the directory's default ACL, as any new file there does.
    await sandbox.write('/shared/new.txt', 'fresh');
    expect(aclOf(path.join(dir, 'new.txt'))).toContain('user:nobody:r--');
  });

  // File capabilities are never carried onto new contents, like set-id bits: a rewrite must not
  // mint a privileged program. (Dropping them only narrows what the file can do.)
  withTools('file capabilities (security.capability) are not carried onto new contents', async () => {
    const file = path.join(root, 'tool');
    fs.writeFileSync(file, 'old', { mode: 0o755 });
    // VFS_CAP_REVISION_2, effective, permitted CAP_NET_BIND_SERVICE.
    setfattr(file, 'security.capability', '0x0100000200040000000000000000000000000000');
    setfattr(file, 'user.kept', 'yes');
    await sandbox.write('/tool', 'new');
    const after = metadataOf(file);
    expect(after.xattrs.join('\n')).not.toContain('security.capability');
    expect(after.xattrs).toContain('user.kept=0x796573');
    expect(after.mode).toBe('755');
  });

  withTools('security.* attributes the process may set are kept', async () => {
    const file = path.join(root, 'labelled.txt');
    fs.writeFileSync(file, 'old');
    setfattr(file, 'security.msbtest', 'label');
    const before = metadataOf(file);
    await sandbox.write('/labelled.txt', 'new');
    expect(metadataOf(file)).toEqual(before);
  });

  // In a user namespace an ACL entry for a user it does not map reads as no ID (-1), which cannot
  // be written back. Here the namespace maps only its own user (host root) as 65534, nobody's own
  // number: were nobody's deny entry read as 65534, it would come back as a deny for root, and
  // nobody would read the new contents. Refused instead.
  withUserns('in a user namespace, an ACL naming a user it does not map is refused, not rewritten for another user', async () => {
    const file = path.join(root, 'secret.txt');
    privateFile(file);
    const before = metadataOf(file);
    const SCRIPT = `
      const { createMountSandbox } = require(${LIB});
      const [root, resolver] = process.argv.slice(1);
      createMountSandbox({ root, resolver }).write('/secret.txt', 'new secret')
        .then(() => console.log('ok'), (e) => console.log(e.code));
    `;
    const child = spawnSync('unshare', ['--user', '--map-user=65534', '--map-group=65534',
      process.execPath, '-e', SCRIPT, root, resolver], { encoding: 'utf8' });
    expect(child.stdout.trim()).toBe('METADATA_NOT_KEPT');
    expect(fs.readFileSync(file, 'utf8')).toBe('old secret');
    expect(metadataOf(file)).toEqual(before);
    expect(nobodyReads(file)).toBe(false);
    expect(fs.readdirSync(root)).toEqual(['secret.txt']);
  });

  withTools('a move on one filesystem keeps the moved file\'s own ACL (the inode itself moves)', async () => {
    const from = path.join(root, 'from.txt');
    privateFile(from, 'moved secret');
    setfattr(from, 'user.origin', 'here');
    fs.writeFileSync(path.join(root, 'to.txt'), 'open', { mode: 0o644 });
    const before = metadataOf(from);
    await sandbox.move('/from.txt', '/to.txt', { overwrite: true });
    expect(metadataOf(path.join(root, 'to.txt'))).toEqual(before);
    expect(nobodyReads(path.join(root, 'to.txt'))).toBe(false);
  });

  // A process that may not set an attribute the old file has (here: a security.* attribute,
  // outside the user namespace's reach) is refused rather than drop it.
  withUserns('write, edit and copy are refused with METADATA_NOT_KEPT where an attribute cannot be set', async () => {
    const file = path.join(root, 'labelled.txt');
    fs.writeFileSync(file, 'old label');
    setfattr(file, 'security.msbtest', 'label');
    fs.writeFileSync(path.join(root, 'incoming.txt'), 'incoming');
    const SCRIPT = `
      const { createMountSandbox } = require(${LIB});
      const [root, resolver] = process.argv.slice(1);
      const sandbox = createMountSandbox({ root, resolver });
      const outcome = (p) => p.then(() => 'ok', (e) => [e.constructor.name, e.code, e.syscall, e.message].join(' | '));
      (async () => {
        console.log(JSON.stringify({
          write: await outcome(sandbox.write('/labelled.txt', 'new')),
          edit: await outcome(sandbox.edit('/labelled.txt', 'old', 'new')),
          copy: await outcome(sandbox.copy('/incoming.txt', '/labelled.txt', { overwrite: true })),
          fresh: await outcome(sandbox.write('/fresh.txt', 'new file')),
          plain: await outcome(sandbox.write('/incoming.txt', 'rewritten')),
        }));
      })();
    `;
    const before = metadataOf(file);
    const child = spawnSync('unshare', ['--user', '--map-root-user', process.execPath, '-e', SCRIPT, root, resolver],
      { encoding: 'utf8' });
    let out;
    try {
      out = JSON.parse(child.stdout);
    } catch {
      throw new Error(`no result from the child: ${child.stderr}`);
    }
    for (const op of ['write', 'edit', 'copy']) {
      expect(out[op]).toBe('MetadataError | METADATA_NOT_KEPT | fsetxattr | ' +
        'Cannot write /labelled.txt without losing an ACL or extended attribute; nothing was changed');
    }
    expect(out.fresh).toBe('ok');
    expect(out.plain).toBe('ok');
    expect(fs.readFileSync(file, 'utf8')).toBe('old label');
    expect(metadataOf(file)).toEqual(before);
    expect(fs.readdirSync(root).sort()).toEqual(['fresh.txt', 'incoming.txt', 'labelled.txt']);
  });
});

// Without /proc the old file's attributes are read by name (listxattrat, getxattrat: Linux 6.13+);
// older kernels refuse the rewrite with PROC_UNAVAILABLE rather than guess. Run in a private
// mount namespace, where /proc can be unmounted for the child alone.
const canUnmountProc = MISSING === null &&
  spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', 'umount -l /proc'], { stdio: 'ignore' })
    .status === 0;
const withoutProc = testNeeding(MISSING ?? (canUnmountProc ? null : '/proc cannot be unmounted in a mount namespace here'));
const [major, minor] = os.release().split('.').map(Number);
const hasXattrAt = major > 6 || (major === 6 && minor >= 13);

describe.each(RESOLVERS)('without /proc (%s resolver)', (resolver) => {
  withoutProc(hasXattrAt
    ? 'a rewrite still keeps the ACL and attributes (read by name)'
    : 'a rewrite over a file is refused with PROC_UNAVAILABLE (no listxattrat before Linux 6.13)', () => {
    const { base, root } = openLayout();
    try {
      const file = path.join(root, 'secret.txt');
      privateFile(file);
      setfattr(file, 'user.origin', 'here');
      const before = metadataOf(file);
      const SCRIPT = `
        const { createMountSandbox } = require(${LIB});
        const [root, resolver] = process.argv.slice(1);
        createMountSandbox({ root, resolver }).write('/secret.txt', 'new secret')
          .then(() => console.log('ok'), (e) => console.log(e.code));
      `;
      const child = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c',
        'umount -l /proc && exec "$0" -e "$1" "$2" "$3"', process.execPath, SCRIPT, root, resolver], { encoding: 'utf8' });
      expect(child.stdout.trim()).toBe(hasXattrAt ? 'ok' : 'PROC_UNAVAILABLE');
      expect(fs.readFileSync(file, 'utf8')).toBe(hasXattrAt ? 'new secret' : 'old secret');
      expect(metadataOf(file)).toEqual(before);
      expect(nobodyReads(file)).toBe(false);
      expect(fs.readdirSync(root)).toEqual(['secret.txt']);
    } finally {
      removeDir(base);
    }
  });
});

describe.each(RESOLVERS)('a move across filesystems keeps the moved file\'s ACL and attributes (%s resolver)', (resolver) => {
  let base;
  let root;
  let shm;
  let sandbox;
  beforeEach(() => {
    ({ base, root } = openLayout());
    if (otherDevice) {
      shm = fs.realpathSync(fs.mkdtempSync('/dev/shm/msb-test-'));
      fs.chmodSync(shm, 0o755);
    }
    sandbox = createMountSandbox({ root, resolver, mounts: [{ source: shm || base, target: '/shm' }] });
  });
  afterEach(() => {
    removeDir(base);
    if (shm) removeDir(shm);
  });

  for (const [what, occupied] of [['to a new name', false], ['over an open file', true]]) {
    withOtherDevice(`${what}: nobody cannot read it at its new place`, async () => {
      const from = path.join(root, 'secret.txt');
      privateFile(from, 'moved secret');
      setfattr(from, 'user.origin', 'here');
      const before = metadataOf(from);
      const acl = aclOf(from);
      const to = path.join(shm, 'secret.txt');
      if (occupied) fs.writeFileSync(to, 'open', { mode: 0o644 });
      await sandbox.move('/secret.txt', '/shm/secret.txt', { overwrite: true });
      expect(fs.existsSync(from)).toBe(false);
      expect(fs.readFileSync(to, 'utf8')).toBe('moved secret');
      expect(aclOf(to)).toBe(acl);
      expect(metadataOf(to)).toEqual(before);
      expect(nobodyReads(to)).toBe(false);
    });
  }

  // A filesystem that holds no extended attributes at all cannot hold the ACL: the move is
  // refused and the file stays where it was, as it was. The ramfs is mounted in a child's own
  // mount namespace.
  withRamfs('to a filesystem without ACLs or attributes: refused, the file stays', () => {
    const from = path.join(root, 'secret.txt');
    privateFile(from, 'moved secret');
    fs.writeFileSync(path.join(root, 'tagged.txt'), 'tagged');
    setfattr(path.join(root, 'tagged.txt'), 'user.origin', 'here');
    fs.writeFileSync(path.join(root, 'plain.txt'), 'plain');
    const ramfs = path.join(base, 'ramfs');
    fs.mkdirSync(ramfs);
    const SCRIPT = `
      const { createMountSandbox } = require(${LIB});
      const [root, ramfs, resolver] = process.argv.slice(1);
      const sandbox = createMountSandbox({ root, resolver, mounts: [{ source: ramfs, target: '/ram' }] });
      const outcome = (p) => p.then(() => 'ok', (e) => [e.constructor.name, e.code, e.index].join(' | '));
      (async () => {
        console.log(JSON.stringify({
          acl: await outcome(sandbox.move('/secret.txt', '/ram/secret.txt')),
          user: await outcome(sandbox.move('/tagged.txt', '/ram/tagged.txt')),
          plain: await outcome(sandbox.move('/plain.txt', '/ram/plain.txt')),
          listed: await sandbox.list('/ram'),
        }));
      })();
    `;
    const before = snapshotTree(root);
    const meta = metadataOf(from);
    const child = spawnSync('unshare', ['--mount', '--propagation', 'private', 'sh', '-c',
      'mount -t ramfs ramfs "$1" && shift && exec "$@"', 'sh', ramfs,
      process.execPath, '-e', SCRIPT, root, ramfs, resolver], { encoding: 'utf8' });
    let out;
    try {
      out = JSON.parse(child.stdout);
    } catch {
      throw new Error(`no result from the child: ${child.stderr}`);
    }
    expect(out.acl).toBe('MetadataError | METADATA_NOT_KEPT | 1');
    expect(out.user).toBe('MetadataError | METADATA_NOT_KEPT | 1');
    expect(out.plain).toBe('ok');
    expect(out.listed).toEqual(['plain.txt']);  // no temporary left behind
    expect(snapshotTree(root)).toEqual(before.filter((line) => !line.startsWith('plain.txt ')));
    expect(metadataOf(from)).toEqual(meta);
  });
});

// The refusal's class is public like every other.
test('MetadataError is exported from the main entry and mount-sandbox/errors', () => {
  const errors = require('../errors');
  expect(typeof lib.MetadataError).toBe('function');
  expect(errors.MetadataError).toBe(lib.MetadataError);
  const e = new lib.MetadataError('/a.txt');
  expect(e).toBeInstanceOf(SandboxError);
  expect(e.code).toBe('METADATA_NOT_KEPT');
  expect(e.path).toBe('/a.txt');
  expect(e.toLLMMessage()).toContain('/a.txt');
});
