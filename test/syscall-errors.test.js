'use strict';

// A failure the host reported carries the system call that failed as `syscall`, as Node's fs
// errors do; a refusal that is the sandbox's own carries none. Neither names a host path.
const fs = require('fs');
const path = require('path');
const {
  createMountSandbox, NotFoundError, NotDirectoryError, ReadOnlyError,
} = require('../lib');
const { RESOLVERS, tempDirEach, expectRefusal } = require('./helpers');

// The call each resolver opens a path with: the kernel's lookup, or the walk's own steps.
const OPEN_CALL = { openat2: 'openat2', walk: 'openat' };

describe.each(RESOLVERS)('resolver %s', (resolver) => {
  let dir;
  tempDirEach('msb-syscall-', (d) => {
    dir = d;
    fs.writeFileSync(path.join(dir, 'file.txt'), 'data');
  });
  const sandbox = (readonly = false) => createMountSandbox({ root: dir, resolver, readonly });

  test('reading a missing file names the lookup that found nothing', async () => {
    const err = await expectRefusal(dir, () => sandbox().read('/missing.txt'), NotFoundError);
    expect(err.syscall).toBe(OPEN_CALL[resolver]);
  });

  test('stat of a missing file names the lookup too', async () => {
    const err = await expectRefusal(dir, () => sandbox().stat('/missing.txt'), NotFoundError);
    expect(err.syscall).toBe(OPEN_CALL[resolver]);
  });

  test('listing a file names the directory open the host refused', async () => {
    const err = await expectRefusal(dir, () => sandbox().list('/file.txt'), NotDirectoryError);
    expect(err.syscall).toBe('openat');
  });

  test('deleting a missing file names the fstatat that found nothing', async () => {
    const err = await expectRefusal(dir, () => sandbox().delete('/missing.txt'), NotFoundError);
    expect(err.syscall).toBe('fstatat');
  });

  test("the sandbox's own refusal names no call", async () => {
    const err = await expectRefusal(dir, () => sandbox(true).write('/file.txt', 'x'), ReadOnlyError);
    expect(err).not.toHaveProperty('syscall');
  });
});
