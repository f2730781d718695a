'use strict';

// Starts the real mount-sandbox-mcp as a process (node mcp/bin/mount-sandbox-mcp.js args...) and
// connects the MCP SDK's client to it over stdio, as an agent client would.
//   const { client, close, stderr } = await startServer(['--root', dir]);
//   const result = await client.callTool({ name: 'read_text_file', arguments: { path: '/a.txt' } });
//   await close();
// stderr() is what the server wrote to its stderr so far, pid() its process id. Options: { env, cwd, clientOptions
// (passed to the SDK's Client: capabilities, ...), roots (answered to roots/list when given: an
// array or a function returning one), bin (another entry, such as PROBE_BIN) }.
const path = require('path');
const { Client } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');

const BIN = path.join(__dirname, '..', '..', 'mcp', 'bin', 'mount-sandbox-mcp.js');
const PROBE_BIN = path.join(__dirname, 'mcp-probe-server.js');

async function startServer(args, options = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.bin ?? BIN, ...args],
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stderr: 'pipe',
  });
  let errText = '';
  transport.stderr.on('data', (chunk) => {
    errText += chunk;
  });
  const capabilities = { ...(options.roots ? { roots: { listChanged: true } } : {}), ...options.clientOptions?.capabilities };
  const client = new Client({ name: 'mount-sandbox-tests', version: '0' }, { ...options.clientOptions, capabilities });
  if (options.roots) {
    client.setRequestHandler('roots/list', async () => ({ roots: typeof options.roots === 'function' ? options.roots() : options.roots }));
  }
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close().catch(() => {});
    error.message += `\nserver stderr:\n${errText}`;
    throw error;
  }
  return {
    client,
    stderr: () => errText,
    pid: () => transport.pid,
    close: async () => {
      await client.close().catch(() => {});
    },
  };
}

// A tool result's text parts, joined as a client shows them.
const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

module.exports = { startServer, textOf, BIN, PROBE_BIN };
