#!/usr/bin/env node
'use strict';

// The two packages as dependents get them, from their packed tarballs:
//  1. a project installing only mount-sandbox gets no MCP SDK and no zod (they are
//     mount-sandbox-mcp's dependencies, and only devDependencies of the root);
//  2. a project installing both tarballs gets a mount-sandbox-mcp that finds its own installed
//     mount-sandbox (not the repository's) and the SDK, and whose bin serves: it is started as
//     `mount-sandbox-mcp --root DIR` and driven over stdio by the SDK's client, which lists its
//     tools and reads the mount table.
// Installs run with --ignore-scripts (mount-sandbox has no install script; its prebuilt binaries
// come in the tarball, or MOUNT_SANDBOX_ADDON/MOUNT_SANDBOX_LAUNCHER name a build).
//
// Usage: node scripts/test-mcp-consumer.js path/to/mount-sandbox-X.tgz path/to/mount-sandbox-mcp-X.tgz
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const [rootTarball, mcpTarball] = process.argv.slice(2).map((f) => f && path.resolve(f));
if (!rootTarball || !mcpTarball) {
  console.error('usage: node scripts/test-mcp-consumer.js <mount-sandbox tarball> <mount-sandbox-mcp tarball>');
  process.exit(2);
}

function fail(message) {
  console.error(`FAIL: ${message}`);
  process.exit(1);
}

function consumer(work, name, tarballs) {
  const dir = path.join(work, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `msb-${name}`, version: '1.0.0', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  return dir;
}

const resolvesFrom = (dir, request) => {
  try {
    return require.resolve(request, { paths: [dir] });
  } catch {
    return null;
  }
};

async function serveAndList(dir) {
  // The client is the repository's (the test harness); the server is the consumer's installed bin.
  const { Client } = require('@modelcontextprotocol/client');
  const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
  const served = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-mcp-served-'));
  fs.writeFileSync(path.join(served, 'hello.txt'), 'hello\n');
  const transport = new StdioClientTransport({
    command: path.join(dir, 'node_modules', '.bin', 'mount-sandbox-mcp'),
    args: ['--root', served],
    cwd: dir,
    env: { ...process.env },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'msb-consumer-check', version: '0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    console.log(`[both] mount-sandbox-mcp --root serves ${tools.length} tools: ${tools.map((t) => t.name).join(', ') || '(none yet)'}`);
    if (tools.some((t) => t.name === 'list_allowed_directories')) {
      const result = await client.callTool({ name: 'list_allowed_directories', arguments: {} });
      const text = JSON.stringify(result);
      if (result.isError || text.includes(served)) fail(`list_allowed_directories: ${text}`);
    }
  } finally {
    await client.close().catch(() => {});
    fs.rmSync(served, { recursive: true, force: true });
  }
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-mcp-consumer-'));
  try {
    const only = consumer(work, 'only-mount-sandbox', [rootTarball]);
    for (const name of ['@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod']) {
      if (fs.existsSync(path.join(only, 'node_modules', name)) || resolvesFrom(only, name)) {
        fail(`installing only mount-sandbox brought ${name}`);
      }
    }
    console.log('[only mount-sandbox] no MCP SDK, no zod installed');

    const both = consumer(work, 'both', [rootTarball, mcpTarball]);
    const mcpDir = path.join(both, 'node_modules', 'mount-sandbox-mcp');
    // Which mount-sandbox the server's own resolution helper loads, asked in a process of the
    // consumer's (this script's package is mount-sandbox, whose self-reference would answer here).
    const loaded = execFileSync(process.execPath, ['-e', `require(${JSON.stringify(path.join(mcpDir, 'lib', 'mount-sandbox.js'))});
      console.log(Object.keys(require.cache).filter((f) => f.endsWith('/lib/index.js')).join('\\n'))`], { cwd: both, encoding: 'utf8' }).trim();
    if (loaded !== path.join(both, 'node_modules', 'mount-sandbox', 'lib', 'index.js')) {
      fail(`mount-sandbox-mcp loads mount-sandbox from ${loaded}, not the installed package`);
    }
    const sdk = execFileSync(process.execPath, ['-e', "console.log(require.resolve('@modelcontextprotocol/server'))"], { cwd: path.join(mcpDir, 'lib'), encoding: 'utf8' }).trim();
    if (!sdk.startsWith(path.join(both, 'node_modules'))) fail(`mount-sandbox-mcp resolves the SDK to ${sdk}`);
    await serveAndList(both);
    console.log('ok: the packed packages work for a dependent');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error) => fail(error.stack));
