'use strict';

// Files as they are (issue 39, point 6): get_file_info and sandbox.stat() report a FIFO, a socket
// and a device as one, never as a file, from the descriptor the path resolved to.
const { testIf } = require('./helpers/skips');
const fs = require('fs');
const net = require('net');
const path = require('path');
const { execFileSync } = require('child_process');
const { makeTempDir, removeDir } = require('./helpers');
const { startServer, textOf } = require('./helpers/mcp-client');
const { createMountSandbox } = require('../lib');

jest.setTimeout(60_000);

let root;
let server;
let listener;

beforeAll(async () => {
  root = makeTempDir('msb-mcp-types-');
  fs.writeFileSync(path.join(root, 'plain.txt'), 'abc');
  fs.mkdirSync(path.join(root, 'dir'));
  execFileSync('mkfifo', [path.join(root, 'pipe')]);
  listener = net.createServer().listen(path.join(root, 'sock'));
  await new Promise((resolve) => listener.once('listening', resolve));
  server = await startServer(['--root', root]);
});

afterAll(async () => {
  await server?.close();
  listener?.close();
  removeDir(root);
});

const info = (p) => server.client.callTool({ name: 'get_file_info', arguments: { path: p } });

test.each([
  ['/plain.txt', 'file', true, false],
  ['/dir', 'directory', false, true],
  ['/pipe', 'fifo', false, false],
  ['/sock', 'socket', false, false],
])('get_file_info of %s: type %s', async (p, type, isFile, isDirectory) => {
  const result = await info(p);
  expect(result.structuredContent).toMatchObject({ type, isFile, isDirectory });
  expect(textOf(result)).toContain(`type: ${type}`);
});

test('sandbox.stat() says the type, and explain_path words it', async () => {
  const sandbox = createMountSandbox({ root });
  expect((await sandbox.stat('/pipe')).type).toBe('fifo');
  expect((await sandbox.stat('/plain.txt')).type).toBe('file');
  const explained = textOf(await server.client.callTool({ name: 'explain_path', arguments: { path: '/pipe' } }));
  expect(explained).toContain('It exists: a FIFO');
});

const asRoot = testIf(process.getuid() === 0, 'making a device node (mknod) needs root');
asRoot('a character device is one (made with mknod, as root)', async () => {
  execFileSync('mknod', [path.join(root, 'null'), 'c', '1', '3']);
  expect((await info('/null')).structuredContent).toMatchObject({ type: 'character-device', isFile: false });
});
