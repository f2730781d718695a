'use strict';

// The MCP server ships as its own package (mcp/, mount-sandbox-mcp) so that a dependent of
// mount-sandbox alone never gets the MCP SDK: the root's dependencies and tarball stay free of it,
// and mcp/'s manifest names what it needs, mount-sandbox at exactly this repository's version.
// (scripts/test-mcp-consumer.js, run by CI, installs both packed tarballs and serves from them.)
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const ROOT = path.join(__dirname, '..');
const MCP = path.join(ROOT, 'mcp');
const rootPkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const mcpPkg = JSON.parse(fs.readFileSync(path.join(MCP, 'package.json'), 'utf8'));
const SDK = ['@modelcontextprotocol/server', '@modelcontextprotocol/core', '@modelcontextprotocol/client', 'zod'];

// What `npm pack` would put in the tarball (no scripts: the root's prepack wants prebuilt binaries).
function packedFiles(dir) {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8' });
  return JSON.parse(out)[0].files.map((f) => f.path);
}

test('mount-sandbox depends on no MCP package, and its tarball holds nothing of mcp/', () => {
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    for (const name of SDK) expect([field, name, rootPkg[field]?.[name]]).toEqual([field, name, undefined]);
  }
  expect(rootPkg.files.filter((f) => /^!?mcp\b/.test(f))).toEqual([]);
  const files = packedFiles(ROOT);
  expect(files).toContain('lib/index.js');
  expect(files.filter((f) => f.startsWith('mcp/'))).toEqual([]);
}, 60000);

test('mount-sandbox-mcp names mount-sandbox at this version, the SDK, and a bin that exists', () => {
  expect(mcpPkg.name).toBe('mount-sandbox-mcp');
  expect(mcpPkg.dependencies['mount-sandbox']).toBe(rootPkg.version);
  expect(mcpPkg.dependencies['@modelcontextprotocol/server']).toMatch(/^~2\.4\./);
  expect(mcpPkg.engines.node).toBe(rootPkg.engines.node);
  expect(mcpPkg.bin).toEqual({ 'mount-sandbox-mcp': 'bin/mount-sandbox-mcp.js' });
  const bin = path.join(MCP, mcpPkg.bin['mount-sandbox-mcp']);
  expect(fs.readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  expect(fs.statSync(bin).mode & 0o111).not.toBe(0);
  // The repository tests what ships: its devDependencies give mcp/ the same SDK and zod.
  for (const name of ['@modelcontextprotocol/server', 'zod']) expect([name, rootPkg.devDependencies[name]]).toEqual([name, expect.any(String)]);
  expect(rootPkg.devDependencies['@modelcontextprotocol/server']).toBe(mcpPkg.dependencies['@modelcontextprotocol/server']);
  expect(rootPkg.devDependencies['@modelcontextprotocol/client']).toBe(mcpPkg.dependencies['@modelcontextprotocol/server']);
});

test('the mount-sandbox-mcp tarball holds the server, its README and LICENSE, no tests', () => {
  const files = packedFiles(MCP).sort();
  expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/mount-sandbox-mcp.js', 'lib/server.js', 'lib/cli.js']));
  expect(files.filter((f) => !/^(package\.json|README\.md|LICENSE|bin\/[^/]+\.js|lib\/.+\.js)$/.test(f))).toEqual([]);
}, 60000);

test('in the repository, mcp/ runs on this checkout\'s mount-sandbox', () => {
  const loaded = execFileSync(process.execPath, ['-e', `require(${JSON.stringify(path.join(MCP, 'lib', 'mount-sandbox.js'))});
    console.log(Object.keys(require.cache).filter((f) => f.endsWith('/lib/index.js')).join(','))`], { cwd: MCP, encoding: 'utf8' }).trim();
  expect(loaded).toBe(path.join(ROOT, 'lib', 'index.js'));
});
