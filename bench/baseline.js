'use strict';

// Pure-JS reference sandbox for the benchmark: the string-checking approach of golem-forge's
// mount sandbox (lexical path checks, longest-target-first mount lookup, path.join plus a prefix
// check, then plain fs/promises calls by host path). It is written here from scratch to give the
// addon something realistic to be measured against; it is NOT a secure sandbox (symlinks inside
// a mount are followed wherever they point).

const fs = require('fs/promises');
const path = require('path');

class BaselineSandboxError extends Error {
  constructor(code, message, virtualPath) {
    super(message);
    this.name = 'BaselineSandboxError';
    this.code = code;
    this.path = virtualPath;
  }
}

function escapeError(p) {
  return new BaselineSandboxError('PATH_ESCAPE', 'Path escape attempt detected', p);
}

// Lexical normalization of a virtual path: "/a/./b//../c" -> "/a/c"; ".." above "/" throws.
function normalizeVirtual(p) {
  if (typeof p !== 'string' || !p.startsWith('/')) {
    throw new BaselineSandboxError('INVALID_PATH', `Path must be absolute: ${p}`, p);
  }
  const parts = [];
  for (const segment of p.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0) throw escapeError(p);
      parts.pop();
      continue;
    }
    parts.push(segment);
  }
  return '/' + parts.join('/');
}

function normalizeTarget(target) {
  const t = normalizeVirtual(target);
  if (t === '/') throw new BaselineSandboxError('INVALID_CONFIG', 'mount target must not be "/"', target);
  return t;
}

class BaselineSandbox {
  constructor(config) {
    if (!config || typeof config.root !== 'string') throw new TypeError('config.root is required');
    this.root = path.resolve(config.root);
    this.readonly = config.readonly === true;
    const mounts = (config.mounts || []).map((m) => ({
      source: path.resolve(m.source),
      target: normalizeTarget(m.target),
      readonly: m.readonly === true,
    }));
    // Longest target first, so "/data/cache" wins over "/data".
    mounts.sort((a, b) => b.target.length - a.target.length);
    this.mounts = mounts;
    this.rootMount = { source: this.root, target: '/', readonly: this.readonly };
  }

  // Returns { mount, virtual, real } for a virtual path, or throws.
  locate(p) {
    const virtual = normalizeVirtual(p);
    let mount = this.rootMount;
    let rest = virtual.slice(1); // relative to the mount's source, '' for the mount point itself
    for (const m of this.mounts) {
      if (virtual === m.target || virtual.startsWith(m.target + '/')) {
        mount = m;
        rest = virtual.slice(m.target.length + 1);
        break;
      }
    }
    const real = path.join(mount.source, rest);
    const prefix = mount.source.endsWith(path.sep) ? mount.source : mount.source + path.sep;
    if (real !== mount.source && !real.startsWith(prefix)) throw escapeError(p);
    return { mount, virtual, real };
  }

  resolve(p) {
    return this.locate(p).real;
  }

  isValidPath(p) {
    try {
      this.locate(p);
      return true;
    } catch {
      return false;
    }
  }

  canWrite(p) {
    try {
      return !this.locate(p).mount.readonly;
    } catch {
      return false;
    }
  }

  writableTarget(p) {
    const where = this.locate(p);
    if (where.mount.readonly) {
      throw new BaselineSandboxError('READ_ONLY', `Path is read-only: ${p}`, p);
    }
    return where.real;
  }

  async read(p) {
    return fs.readFile(this.resolve(p), 'utf-8');
  }

  async readBinary(p) {
    return new Uint8Array(await fs.readFile(this.resolve(p)));
  }

  async write(p, content) {
    const real = this.writableTarget(p);
    await fs.mkdir(path.dirname(real), { recursive: true });
    await fs.writeFile(real, content, 'utf-8');
  }

  async writeBinary(p, content) {
    const real = this.writableTarget(p);
    await fs.mkdir(path.dirname(real), { recursive: true });
    await fs.writeFile(real, content);
  }

  async delete(p) {
    await fs.unlink(this.writableTarget(p));
  }

  // golem-forge's edit tool: read the file, require exactly one occurrence, write it back.
  async edit(p, oldText, newText) {
    const real = this.writableTarget(p);
    const content = await fs.readFile(real, 'utf-8');
    const at = content.indexOf(oldText);
    if (at < 0 || content.indexOf(oldText, at + 1) >= 0) {
      throw new BaselineSandboxError('NO_MATCH', `The text to replace must occur exactly once in ${p}`, p);
    }
    await fs.writeFile(real, content.slice(0, at) + newText + content.slice(at + oldText.length), 'utf-8');
  }

  async exists(p) {
    const real = this.resolve(p);
    try {
      await fs.access(real);
      return true;
    } catch (err) {
      if (err && err.code === 'ENOENT') return false;
      throw err;
    }
  }

  async list(p) {
    const names = await fs.readdir(this.resolve(p));
    return names.sort();
  }

  async stat(p) {
    const st = await fs.stat(this.resolve(p));
    return {
      path: p,
      size: st.size,
      createdAt: st.birthtime,
      modifiedAt: st.mtime,
      isDirectory: st.isDirectory(),
    };
  }

  // A narrower view: the subtree at `restrict` becomes "/", mounts below it keep their place.
  restrict({ restrict: sub = '/', readonly } = {}) {
    const where = this.locate(sub);
    const base = where.virtual;
    const forceReadonly = readonly === true;
    const rootReadonly = where.mount.readonly || forceReadonly;
    if (readonly === false && rootReadonly) {
      throw new BaselineSandboxError('PERMISSION_ESCALATION', 'Cannot make a read-only path writable', sub);
    }
    const inside = base === '/' ? '/' : base + '/';
    const mounts = [];
    for (const m of this.mounts) {
      if (m.target.length > base.length && m.target.startsWith(inside)) {
        mounts.push({
          source: m.source,
          target: m.target.slice(base === '/' ? 0 : base.length),
          readonly: m.readonly || forceReadonly,
        });
      }
    }
    return new BaselineSandbox({ root: where.real, readonly: rootReadonly, mounts });
  }

  getConfig() {
    return {
      root: this.root,
      readonly: this.readonly,
      mounts: this.mounts.map((m) => ({ ...m })),
    };
  }
}

function createBaselineSandbox(config) {
  return new BaselineSandbox(config);
}

module.exports = { BaselineSandbox, BaselineSandboxError, createBaselineSandbox };
