'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { openat2Supported } = require('../lib');

// Both resolvers run every security test; openat2 only where the kernel has it.
const RESOLVERS = openat2Supported() ? ['openat2', 'walk'] : ['walk'];

function makeTempDir(prefix = 'msb-test-') {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

function removeDir(dir) {
  fs.rmSync(dir, { recursive: true, force: true });
}

// Every file and directory under `dir`, relative, for "nothing changed outside" assertions.
function snapshotTree(dir) {
  const out = [];
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      const st = fs.lstatSync(path.join(dir, child));
      out.push(`${child}:${st.mode}:${st.size}:${entry.isSymbolicLink() ? fs.readlinkSync(path.join(dir, child)) : ''}`);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk('');
  return out.sort();
}

function write(file, content = '') {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

module.exports = { RESOLVERS, makeTempDir, removeDir, snapshotTree, write };
