'use strict';

// readAttachments: golem-forge's attachment policy, all or nothing, checked before any byte is
// read. Real files, FIFOs that would hang a careless reader, symlinks that lead outside.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  createMountSandbox,
  DEFAULT_ATTACHMENT_POLICY,
  AttachmentPolicyError,
  NotFoundError,
  SymlinkError,
  NotRegularFileError,
  IsDirectoryError,
  FileTooLargeError,
  SuffixNotAllowedError,
  OutsideSandboxError,
  InvalidPathError,
} = require('../lib');
const {
  RESOLVERS, makeTempLayout, removeDir, releaseFifo, write, expectRefusal,
} = require('./helpers');

const SECRET = 'TOP-SECRET-CONTENT';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);

test('the default policy is golem-forge\'s: 4 files, 10,000,000 bytes, any suffix', () => {
  expect(DEFAULT_ATTACHMENT_POLICY).toEqual({
    max_attachments: 4,
    max_total_bytes: 10_000_000,
    allowed_suffixes: [],
    denied_suffixes: [],
  });
  expect(Object.isFrozen(DEFAULT_ATTACHMENT_POLICY)).toBe(true);
});

describe.each(RESOLVERS)('readAttachments with the %s resolver', (resolver) => {
  let base;
  let root;
  let outside;
  let fifo;
  let sandbox;

  beforeEach(() => {
    ({ base, root, outside } = makeTempLayout(['root', 'outside'], 'msb-attach-'));
    write(path.join(root, 'a.txt'), 'alpha');
    write(path.join(root, 'b.md'), '# beta é');
    write(path.join(root, 'c.json'), '{"k":1}');
    write(path.join(root, 'img.PNG'), PNG);
    write(path.join(root, 'data.bin'), Buffer.from([1, 2, 3]));
    write(path.join(root, 'page.svg'), '<svg/>');
    write(path.join(root, 'doc.pdf'), '%PDF-1.4');
    write(path.join(root, 'x.env'), 'KEY=1');
    fs.mkdirSync(path.join(root, 'dir'));
    write(path.join(outside, 'secret.txt'), SECRET);
    fifo = path.join(root, 'pipe.txt');
    execFileSync('mkfifo', [fifo]);
    sandbox = createMountSandbox({ root, resolver });
  });

  afterEach(() => {
    releaseFifo(fifo);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe(SECRET);
    removeDir(base);
  });

  // The call must settle promptly (a FIFO may be among the paths) with ErrorClass, name no host
  // path and change nothing.
  const refuses = (fn, ErrorClass) => expectRefusal(base, fn, ErrorClass, {
    contents: false,
    settle: { ms: 5000, what: 'readAttachments' },
  });

  test('up to four files are read with name, path, media type, bytes and text', async () => {
    const result = await sandbox.readAttachments(['/a.txt', '/b.md', '/c.json', '/img.PNG']);
    expect(result.map((r) => [r.name, r.path, r.mimeType])).toEqual([
      ['a.txt', '/a.txt', 'text/plain'],
      ['b.md', '/b.md', 'text/markdown'],
      ['c.json', '/c.json', 'application/json'],
      ['img.PNG', '/img.PNG', 'image/png'],
    ]);
    for (const r of result) expect(r.data).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(result[0].data).toString()).toBe('alpha');
    expect(result[0].text).toBe('alpha');
    expect(result[1].text).toBe('# beta é');
    expect(result[2].text).toBe('{"k":1}');
    expect(Buffer.from(result[3].data).equals(PNG)).toBe(true);
    expect(result[3]).not.toHaveProperty('text');
  });

  test('media types: binary files get no text, SVG does', async () => {
    const result = await sandbox.readAttachments(['/data.bin', '/page.svg', '/doc.pdf']);
    expect(result.map((r) => r.mimeType)).toEqual(['application/octet-stream', 'image/svg+xml', 'application/pdf']);
    expect(result[0]).not.toHaveProperty('text');
    expect([...result[0].data]).toEqual([1, 2, 3]);
    expect(result[1].text).toBe('<svg/>');
    expect(result[2]).not.toHaveProperty('text');
  });

  test('nothing to attach is an empty list', async () => {
    expect(await sandbox.readAttachments([])).toEqual([]);
  });

  test('five paths break maxAttachments before anything is looked at', async () => {
    // A missing file and a FIFO among them: the count is checked first.
    const paths = ['/a.txt', '/b.md', '/missing.txt', '/pipe.txt', '/c.json'];
    const err = await refuses(() => sandbox.readAttachments(paths), AttachmentPolicyError);
    expect(err.code).toBe('ATTACHMENT_POLICY');
    expect(err.rule).toBe('maxAttachments');
    expect(err.message).toContain('4');
    expect(err.message).toContain('5');
    const one = await refuses(
      () => sandbox.readAttachments(['/a.txt', '/b.md'], { max_attachments: 1 }),
      AttachmentPolicyError,
    );
    expect(one.rule).toBe('maxAttachments');
    expect(await sandbox.readAttachments(['/a.txt'], { maxAttachments: 1 })).toHaveLength(1);
  });

  test('allowed suffixes: case-insensitive, with or without the dot, rule "allowedSuffixes"', async () => {
    const policy = { allowed_suffixes: ['.MD', 'txt'] };
    const ok = await sandbox.readAttachments(['/a.txt', '/b.md'], policy);
    expect(ok.map((r) => r.name)).toEqual(['a.txt', 'b.md']);
    const err = await refuses(() => sandbox.readAttachments(['/a.txt', '/c.json', '/pipe.txt'], policy), AttachmentPolicyError);
    expect(err.rule).toBe('allowedSuffixes');
    expect(err.path).toBe('/c.json');
    expect(err.message).toContain('.md');
  });

  test('denied suffixes win, rule "deniedSuffixes"', async () => {
    for (const policy of [{ denied_suffixes: ['.env'] }, { deniedSuffixes: ['ENV'] }]) {
      const err = await refuses(() => sandbox.readAttachments(['/a.txt', '/x.env'], policy), AttachmentPolicyError);
      expect(err.rule).toBe('deniedSuffixes');
      expect(err.path).toBe('/x.env');
    }
    const both = { allowed_suffixes: ['.env'], denied_suffixes: ['.env'] };
    const err = await refuses(() => sandbox.readAttachments(['/x.env'], both), AttachmentPolicyError);
    expect(err.rule).toBe('deniedSuffixes');
  });

  test('attack: "." and ".." at the end cannot hide the name of the file that is read', async () => {
    // The core reads /x.env for all of these; the policy must judge "x.env", not "." or "..".
    for (const p of ['/x.env/.', '/x.env/', '/dir/../x.env', '/x.env/dir/..']) {
      const err = await refuses(() => sandbox.readAttachments([p], { denied_suffixes: ['.env'] }), AttachmentPolicyError);
      expect([err.rule, err.path]).toEqual(['deniedSuffixes', p]);
      const notAllowed = await refuses(
        () => sandbox.readAttachments([p], { allowed_suffixes: ['.txt'] }),
        AttachmentPolicyError,
      );
      expect(notAllowed.rule).toBe('allowedSuffixes');
    }
    // ...and a file that is allowed is not refused, nor misnamed, for the same spelling.
    const [dotted] = await sandbox.readAttachments(['/a.txt/.'], { allowed_suffixes: ['.txt'] });
    expect([dotted.name, dotted.path, dotted.mimeType, dotted.text]).toEqual(['a.txt', '/a.txt/.', 'text/plain', 'alpha']);
  });

  test('a total over the limit breaks maxTotalBytes; exactly at the limit is fine', async () => {
    write(path.join(root, 'six-a.txt'), 'x'.repeat(6));
    write(path.join(root, 'six-b.txt'), 'y'.repeat(6));
    const err = await refuses(
      () => sandbox.readAttachments(['/six-a.txt', '/six-b.txt'], { max_total_bytes: 10 }),
      AttachmentPolicyError,
    );
    expect(err.code).toBe('ATTACHMENT_POLICY');
    expect(err.rule).toBe('maxTotalBytes');
    expect(err.message).toContain('12');
    expect(err.message).toContain('10');
    const ok = await sandbox.readAttachments(['/six-a.txt', '/a.txt'], { max_total_bytes: 11 });
    expect(ok.map((r) => r.text)).toEqual(['xxxxxx', 'alpha']);
  });

  test('the total is judged before later paths are even opened: a FIFO after it does not matter', async () => {
    write(path.join(root, 'six-a.txt'), 'x'.repeat(6));
    write(path.join(root, 'six-b.txt'), 'y'.repeat(6));
    // The FIFO comes last: once the first two exceed the total, nothing after them may be
    // touched (a reader that opened and read files in order would hang on it).
    const err = await refuses(
      () => sandbox.readAttachments(['/six-a.txt', '/six-b.txt', '/pipe.txt'], { max_total_bytes: 10 }),
      AttachmentPolicyError,
    );
    expect(err.rule).toBe('maxTotalBytes');
  });

  test('the default total limit applies: a huge sparse file is refused without being read', async () => {
    const fd = fs.openSync(path.join(root, 'huge.txt'), 'w');
    fs.ftruncateSync(fd, 2 ** 40);
    fs.closeSync(fd);
    const err = await refuses(() => sandbox.readAttachments(['/a.txt', '/huge.txt']), AttachmentPolicyError);
    expect(err.rule).toBe('maxTotalBytes');
    fs.truncateSync(path.join(root, 'huge.txt'), 10_000_001);
    const over = await refuses(() => sandbox.readAttachments(['/huge.txt']), AttachmentPolicyError);
    expect(over.rule).toBe('maxTotalBytes');
    fs.truncateSync(path.join(root, 'huge.txt'), 10_000_000);
    const [exact] = await sandbox.readAttachments(['/huge.txt']);
    expect(exact.data.length).toBe(10_000_000);
  });

  test('a missing file is NotFound and names that path; nothing is returned for the others', async () => {
    const err = await refuses(() => sandbox.readAttachments(['/a.txt', '/nope.txt', '/b.md']), NotFoundError);
    expect(err.path).toBe('/nope.txt');
    expect(err.toLLMMessage()).toContain('/nope.txt');
  });

  test('directories and FIFOs are refused without hanging', async () => {
    let err = await refuses(() => sandbox.readAttachments(['/a.txt', '/dir']), IsDirectoryError);
    expect(err.path).toBe('/dir');
    err = await refuses(() => sandbox.readAttachments(['/pipe.txt']), NotRegularFileError);
    expect(err.path).toBe('/pipe.txt');
    err = await refuses(() => sandbox.readAttachments(['/a.txt', '/pipe.txt']), NotRegularFileError);
    expect(err.path).toBe('/pipe.txt');
  });

  test('attack: a symlink that leads outside is refused, and the secret is in no result', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'abs.txt'));
    fs.symlinkSync('../outside/secret.txt', path.join(root, 'rel.txt'));
    fs.symlinkSync(outside, path.join(root, 'outdir'));
    for (const p of ['/abs.txt', '/rel.txt', '/outdir/secret.txt']) {
      const err = await refuses(() => sandbox.readAttachments(['/a.txt', p]), SymlinkError);
      expect(err.path).toBe(p);
      expect(err.message).not.toContain(SECRET);
    }
    // A relative link that stays inside is followed.
    fs.symlinkSync('a.txt', path.join(root, 'alias.txt'));
    const [alias] = await sandbox.readAttachments(['/alias.txt']);
    expect(alias.text).toBe('alpha');
  });

  test('attack: ".." cannot climb out of the root', async () => {
    const err = await refuses(() => sandbox.readAttachments(['/../outside/secret.txt']), InvalidPathError);
    expect(err.path).toBe('/../outside/secret.txt');
  });

  test('the mount\'s own policy applies too: maxFileBytes and suffix rules', async () => {
    const small = path.join(base, 'small');
    write(path.join(small, 'five.txt'), '12345');
    write(path.join(small, 'six.txt'), '123456');
    write(path.join(small, 'notes.md'), 'notes');
    const s = createMountSandbox({
      root,
      resolver,
      mounts: [
        { source: small, target: '/small', maxFileBytes: 5 },
        { source: small, target: '/docs', allowedSuffixes: ['.md'] },
        { source: small, target: '/ref', readonly: true },
      ],
    });
    expect((await s.readAttachments(['/small/five.txt', '/docs/notes.md', '/ref/six.txt'])).map((r) => r.text))
      .toEqual(['12345', 'notes', '123456']);
    let err = await refuses(() => s.readAttachments(['/small/five.txt', '/small/six.txt']), FileTooLargeError);
    expect([err.path, err.size, err.limit]).toEqual(['/small/six.txt', 6, 5]);
    err = await refuses(() => s.readAttachments(['/docs/notes.md', '/docs/five.txt']), SuffixNotAllowedError);
    expect(err.path).toBe('/docs/five.txt');
    expect(err.allowedSuffixes).toEqual(['.md']);
  });

  test('outside the mounts of a root-less sandbox is refused with the readable paths', async () => {
    const s = createMountSandbox({ root: null, resolver, mounts: [{ source: root, target: '/zone' }] });
    expect((await s.readAttachments(['/zone/a.txt']))[0].text).toBe('alpha');
    const err = await refuses(() => s.readAttachments(['/zone/a.txt', '/a.txt']), OutsideSandboxError);
    expect(err.path).toBe('/a.txt');
    expect(err.readablePaths).toEqual(['/zone']);
  });

  test('bad arguments are refused as TypeErrors', async () => {
    await expect(sandbox.readAttachments('/a.txt')).rejects.toThrow(TypeError);
    await expect(sandbox.readAttachments([7])).rejects.toThrow(TypeError);
    await expect(sandbox.readAttachments(['/a.txt'], { max_attachments: -1 })).rejects.toThrow(TypeError);
    await expect(sandbox.readAttachments(['/a.txt'], { max_total_bytes: 0 })).rejects.toThrow(TypeError);
    await expect(sandbox.readAttachments(['/a.txt'], { allowed_suffixes: '.txt' })).rejects.toThrow(TypeError);
    await expect(sandbox.readAttachments(['/a.txt'], { maxFiles: 3 })).rejects.toThrow(TypeError);
    await expect(sandbox.readAttachments(['/a.txt'], null)).rejects.toThrow(TypeError);
  });
});
