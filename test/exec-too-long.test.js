'use strict';

// An over-long command (execve's E2BIG) said as what it is (issue 39, point 6): "the command is
// too long (N bytes; the limit is M)", naming which limit it hit (one argument's, MAX_ARG_STRLEN,
// or all arguments' and the environment's, ARG_MAX), through sandbox.exec and the MCP exec tool.
const { makeTempDir, removeDir } = require('./helpers');
const { needs } = require('./exec-helpers');
const { startServer, textOf } = require('./helpers/mcp-client');
const { createMountSandbox } = require('../lib');

jest.setTimeout(60_000);

let root;
beforeAll(() => {
  root = makeTempDir('msb-too-long-');
});
afterAll(() => removeDir(root));

describe('a command too long for execve', () => {
  needs('private-root')('sh -c with a 200,000-byte script: one argument past 131072 bytes', async () => {
    const sandbox = createMountSandbox({ root });
    const script = `echo ${'x'.repeat(200_000)}`;
    const result = await sandbox.exec(['sh', '-c', script]);
    expect(result.exitCode).toBe(126);
    expect(result.stderr).toBe('The command is too long (one argument is 200005 bytes; the limit for one argument is 131072 bytes, ' +
      'MAX_ARG_STRLEN). Write the long part to a file and run that, or pass it on stdin.');
  });

  needs('private-root')('many arguments: all of them together past ARG_MAX', async () => {
    const sandbox = createMountSandbox({ root });
    // Past ARG_MAX (2 MiB with the usual 8 MiB stack), within the launcher's 16 MiB policy.
    const argv = ['true', ...Array.from({ length: 100 }, () => 'y'.repeat(100_000))];
    const result = await sandbox.exec(argv);
    expect(result.exitCode).toBe(126);
    expect(result.stderr).toMatch(/^The command is too long \((\d+) bytes with its environment; the limit is (\d+) bytes, ARG_MAX\)/);
    const [, n, m] = /\((\d+) bytes with its environment; the limit is (\d+)/.exec(result.stderr).map(Number);
    expect(n).toBeGreaterThan(m);
    expect(n).toBeGreaterThan(100 * 100_000);
  });

  needs('private-root')('through the MCP exec tool', async () => {
    const server = await startServer(['--root', root]);
    try {
      const result = await server.client.callTool({ name: 'exec', arguments: { command: `echo ${'z'.repeat(150_000)}` } });
      const text = textOf(result);
      expect(text).toContain('exit code: 126');
      expect(text).toContain('The command is too long (one argument is 150005 bytes; the limit for one argument is 131072 bytes');
      expect(text).not.toContain('Permission denied');
    } finally {
      await server.close();
    }
  });
});
