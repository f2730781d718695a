'use strict';

// Hard links made before a run, from a writable mount to a file outside the writable mounts (a
// read-only mount's source, a host file): a command cannot make one, but it would write through
// one already there. sandbox.exec() binds such files read-only (lib/exec/shared-links.js over
// src/fs/link_scan.h). Each attack is first shown to work with { protectSharedLinks: false }.
const fs = require('fs');
const path = require('path');
const ms = require('../lib');
const { makeTempDir, removeDir, write } = require('./helpers');
const { needs, runDirect: run } = require('./exec-helpers');

jest.setTimeout(60000);

let dir;
let proj;
beforeEach(() => {
  dir = makeTempDir('msb-shared-links-');
  proj = path.join(dir, 'proj');
  write(path.join(dir, 'outside', 'secret.txt'), 'host secret\n');
  write(path.join(dir, 'ro', 'readme.txt'), 'read-only\n');
  write(path.join(proj, 'app.ts'), 'export {};\n');
  fs.mkdirSync(path.join(proj, 'deep', 'er'), { recursive: true });
  fs.linkSync(path.join(dir, 'outside', 'secret.txt'), path.join(proj, 'deep', 'er', 'secret.txt'));
  fs.linkSync(path.join(dir, 'ro', 'readme.txt'), path.join(proj, 'readme.txt'));
  write(path.join(proj, 'pair-a.txt'), 'pair\n');
  fs.linkSync(path.join(proj, 'pair-a.txt'), path.join(proj, 'pair-b.txt'));
});
afterEach(() => removeDir(dir));

const sandboxOf = (extra = []) => ms.createMountSandbox({
  root: proj, mounts: [{ source: path.join(dir, 'ro'), target: '/ro', readonly: true }, ...extra],
});
const rewrite = (...names) => ['sh', '-c', `${names.map((n) => `echo pwned > ${n}`).join('; ')}; true`];
const read = (...parts) => fs.readFileSync(path.join(dir, ...parts), 'utf8');

describe('commands cannot write through hard links to files outside the writable mounts', () => {
  needs(['pid-namespace'])('the attack works without the protection', async () => {
    await run(sandboxOf(), rewrite('deep/er/secret.txt', 'readme.txt'), { protectSharedLinks: false });
    expect(read('outside', 'secret.txt')).toBe('pwned\n');
    expect(read('ro', 'readme.txt')).toBe('pwned\n');
  });

  needs(['pid-namespace'])('a link to a host file and to a read-only mount\'s file are read-only', async () => {
    const result = await run(sandboxOf(), rewrite('deep/er/secret.txt', 'readme.txt', 'app.ts'));
    expect(read('outside', 'secret.txt')).toBe('host secret\n');
    expect(read('ro', 'readme.txt')).toBe('read-only\n');
    expect(read('proj', 'app.ts')).toBe('pwned\n');
    expect(result.stderr).toMatch(/Read-only file system/);
  });

  needs(['pid-namespace'])('links among writable places stay writable, across mounts too', async () => {
    write(path.join(dir, 'data', 'x.txt'), 'x\n');
    fs.linkSync(path.join(dir, 'data', 'x.txt'), path.join(proj, 'x.txt'));
    const sb = sandboxOf([{ source: path.join(dir, 'data'), target: '/data' }]);
    await run(sb, rewrite('pair-a.txt', 'x.txt'));
    expect(read('proj', 'pair-b.txt')).toBe('pwned\n');
    expect(read('data', 'x.txt')).toBe('pwned\n');
  });

  needs(['pid-namespace'])('a read-only mount inside the root does not count as a writable name', async () => {
    write(path.join(proj, 'vendor', 'lib.js'), 'vendored\n');
    fs.linkSync(path.join(proj, 'vendor', 'lib.js'), path.join(proj, 'lib.js'));
    const sb = sandboxOf([{ source: path.join(proj, 'vendor'), target: '/vendor', readonly: true }]);
    await run(sb, rewrite('lib.js'));
    expect(read('proj', 'vendor', 'lib.js')).toBe('vendored\n');
  });

  needs(['pid-namespace'])('a link planted by an earlier sandbox\'s caller is judged at each run', async () => {
    const sb = sandboxOf();
    fs.linkSync(path.join(dir, 'outside', 'secret.txt'), path.join(proj, 'later.txt'));
    await run(sb, rewrite('later.txt'));
    expect(read('outside', 'secret.txt')).toBe('host secret\n');
  });

  needs(['pid-namespace'])('more links out than it binds: refused before anything runs', async () => {
    const many = path.join(proj, 'many');
    fs.mkdirSync(many);
    for (let i = 0; i < 4097; i++) fs.linkSync(path.join(dir, 'outside', 'secret.txt'), path.join(many, `${i}`));
    const marker = path.join(proj, 'ran');
    const attempt = run(sandboxOf(), ['sh', '-c', 'echo ran > ran']);
    await expect(attempt).rejects.toMatchObject({ name: 'ExecError', stage: 'shared-links' });
    await expect(attempt).rejects.toThrow(/4099 files .*protectSharedLinks: false/);
    expect(fs.existsSync(marker)).toBe(false);
    await expect(run(sandboxOf(), ['true'], { protectSharedLinks: 'no' })).rejects.toThrow(TypeError);
  });
});
