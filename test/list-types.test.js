'use strict';

// list(p, { withTypes: true }): each entry with the type its directory records, on real files:
// a regular file, a directory, symlinks (followed nowhere), a FIFO (never opened), and a mount
// point, which is a directory whatever lies under it.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { createMountSandbox } = require('../lib');
const { makeTempLayout, removeDir, write, settleWithin } = require('./helpers');

let layout;
beforeEach(() => {
  layout = makeTempLayout(['root', 'data'], 'msb-list-types-');
});
afterEach(() => removeDir(layout.base));

test('types as the directory records them; names and order as list() gives them', async () => {
  write(path.join(layout.root, 'a.txt'), 'a');
  fs.mkdirSync(path.join(layout.root, 'dir'));
  fs.symlinkSync('a.txt', path.join(layout.root, 'inside-link'));
  fs.symlinkSync('/etc/passwd', path.join(layout.root, 'outside-link'));
  execFileSync('mkfifo', [path.join(layout.root, 'fifo')]);
  fs.mkdirSync(path.join(layout.root, 'data'));
  write(path.join(layout.root, 'mnt'), 'a file under the mount point');
  const sandbox = createMountSandbox({ root: layout.root, mounts: [{ source: layout.data, target: '/mnt' }] });
  // A FIFO listed is never opened: a blocked open would hang this call.
  const typed = await settleWithin(sandbox.list('/', { withTypes: true }), 5000, 'list with types');
  expect(typed).toEqual([
    { name: 'a.txt', type: 'file' },
    { name: 'data', type: 'directory' },
    { name: 'dir', type: 'directory' },
    { name: 'fifo', type: 'other' },
    { name: 'inside-link', type: 'symlink' },
    { name: 'mnt', type: 'directory' },
    { name: 'outside-link', type: 'symlink' },
  ]);
  expect(typed.map((e) => e.name)).toEqual(await sandbox.list('/'));
  expect(await sandbox.list('/', { withTypes: false })).toEqual(await sandbox.list('/'));
});

test('refusals are those of list(); bad options are TypeErrors', async () => {
  const sandbox = createMountSandbox({ root: layout.root });
  await expect(sandbox.list('/../x', { withTypes: true })).rejects.toMatchObject({ code: expect.any(String) });
  await expect(sandbox.list('/missing', { withTypes: true })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(sandbox.list('/', { withTypes: 'yes' })).rejects.toThrow(TypeError);
  await expect(sandbox.list('/', { types: true })).rejects.toThrow(TypeError);
});
