'use strict';

// Attacks on what the facade is handed: configs, restrictions, policies and options whose
// defaults come from a polluted Object.prototype, whose getters or Proxy traps answer differently
// each time they are read, SharedArrayBuffer views, and suffix rules whose case is folded one way
// in JS and another in the core. The facade copies caller objects once into plain own data
// (lib/common/plain.js) and folds suffixes as the core does (ASCII only, suffix_rule in src/policy.cc).
const fs = require('fs');
const path = require('path');
const {
  createMountSandbox,
  createMountSandboxAsync,
  createSandboxFromConfig,
  parseProgramConfig,
  parseWorkerFile,
  sandboxForWorker,
  SandboxConfigError,
  AttachmentPolicyError,
  SuffixNotAllowedError,
  FileTooLargeError,
  NotFoundError,
  SandboxError,
  isSandboxError,
} = require('../lib');
const { RESOLVERS, outsideUntouchedEach, write } = require('./helpers');

const SECRET = 'OUTSIDE-PRIVATE-KEY';

// Sets keys on Object.prototype by assignment, as a pollution bug elsewhere in the app would
// (enumerable, inherited by every object), for the whole of `fn`, async part included.
async function polluted(values, fn) {
  for (const [key, value] of Object.entries(values)) {
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, key)).toBe(false);
    Object.prototype[key] = value;
  }
  try {
    return await fn();
  } finally {
    for (const key of Object.keys(values)) delete Object.prototype[key];
  }
}

// The outcome of a call that may throw or return a promise: { value } or the error.
async function outcomeOf(fn) {
  try {
    return { value: await fn() };
  } catch (e) {
    return e;
  }
}

// What an async method hands back: a promise that settles, never a synchronous throw.
async function settled(fn) {
  let promise;
  expect(() => {
    promise = fn();
  }).not.toThrow();
  expect(typeof promise.then).toBe("function");
  return promise.then((value) => ({ value }), (e) => e);
}

// A getter that answers `first` on its first `times` reads and `later` on every read after, and
// counts.
function flipping(object, key, first, later, times = 1) {
  const reads = { count: 0 };
  Object.defineProperty(object, key, {
    enumerable: true,
    configurable: true,
    get() {
      reads.count += 1;
      return reads.count <= times ? first : later;
    },
  });
  return reads;
}

// A Proxy over `target` that counts every trap by key (and `ownKeys` under "*ownKeys*").
function countingProxy(target) {
  const counts = new Map();
  const count = (key) => counts.set(String(key), (counts.get(String(key)) || 0) + 1);
  const handler = {};
  for (const trap of ['get', 'has', 'getOwnPropertyDescriptor']) {
    handler[trap] = (t, key, ...rest) => {
      count(key);
      return Reflect[trap](t, key, ...rest);
    };
  }
  handler.ownKeys = (t) => {
    count('*ownKeys*');
    return Reflect.ownKeys(t);
  };
  return { proxy: new Proxy(target, handler), counts };
}

describe.each(RESOLVERS)('caller input with the %s resolver', (resolver) => {
  let base;
  let root;
  let outside;

  outsideUntouchedEach((layout) => {
    ({ base, root, outside } = layout);
    write(path.join(root, 'a.txt'), 'alpha-content');
    write(path.join(root, 'b.txt'), 'beta');
    write(path.join(root, 'c.txt'), 'gamma');
    write(path.join(root, 'secrets', 'key.txt'), 'parent-only');
    write(path.join(root, 'src', 'main.ts'), 'main');
    write(path.join(outside, 'id_rsa'), SECRET);
  }, 'msb-input-');

  function expectNoHostPath(err) {
    expect(err.message).not.toContain(base);
    if (typeof err.toLLMMessage === 'function') expect(err.toLLMMessage()).not.toContain(base);
  }

  describe('a polluted Object.prototype', () => {
    test('adds no mount: createMountSandbox({ root }) neither reads nor writes a polluted /host', async () => {
      const { sandbox, read } = await polluted({ mounts: [{ source: outside, target: '/host' }] }, async () => {
        const sb = createMountSandbox({ root, resolver });
        await sb.write('/host/PWNED.txt', 'x');
        return { sandbox: sb, read: await outcomeOf(() => sb.read('/host/id_rsa')) };
      });
      expect(sandbox.getConfig().mounts).toEqual([]);
      // "/host" is an ordinary directory of the root: the write lands there, the read finds nothing.
      expect(fs.readFileSync(path.join(root, 'host', 'PWNED.txt'), 'utf8')).toBe('x');
      expect(read).toBeInstanceOf(NotFoundError);
      expectNoHostPath(read);
    });

    test('adds no mount to createMountSandboxAsync, and creates nothing outside', async () => {
      const planted = path.join(outside, 'created');
      const sandbox = await polluted({ mounts: [{ source: planted, target: '/host' }] },
        () => createMountSandboxAsync({ root, resolver }));
      expect(sandbox.getConfig().mounts).toEqual([]);
      expect(fs.existsSync(planted)).toBe(false);
    });

    test('adds no mount from a polluted Array.prototype index either', async () => {
      // A one-mount list with a hole after it: whoever reads index 1 gets Array.prototype[1].
      const mounts = [{ source: path.join(root, 'src'), target: '/code' }];
      mounts.length = 2;
      let outcome;
      Array.prototype[1] = { source: outside, target: '/host' };
      try {
        outcome = await outcomeOf(() => createMountSandbox({ root, resolver, mounts }));
      } finally {
        delete Array.prototype[1];
      }
      // Refused (a hole is not a mount) or built without /host; never /host.
      if (outcome instanceof Error) expect(outcome).toBeInstanceOf(SandboxConfigError);
      else expect(outcome.value.getConfig().mounts.map((m) => m.target)).toEqual(['/code']);
    });

    test('approvals stay "ask": no polluted approval, write or delete default turns them preApproved', async () => {
      const config = {
        root,
        resolver,
        approval: {},
        mounts: [{ source: path.join(root, 'src'), target: '/code', approval: {} }],
      };
      const answers = await polluted(
        { approval: { write: 'preApproved', delete: 'preApproved' }, write: 'preApproved', delete: 'preApproved' },
        () => {
          const bare = createMountSandbox({ root, resolver });
          const empty = createMountSandbox(config);
          return [
            bare.approvalFor('/a.txt', 'write'), bare.approvalFor('/a.txt', 'delete'),
            empty.approvalFor('/a.txt', 'write'), empty.approvalFor('/a.txt', 'delete'),
            empty.approvalFor('/code/main.ts', 'write'), empty.approvalFor('/code/main.ts', 'delete'),
          ];
        },
      );
      expect(answers).toEqual(['ask', 'ask', 'ask', 'ask', 'ask', 'ask']);
    });

    test('no config default is read from the prototype (depth, read limit, suffixes, size, read-only)', async () => {
      const config = () => ({ root, resolver, mounts: [{ source: path.join(root, 'src'), target: '/code' }] });
      const clean = createMountSandbox(config()).describe();
      const dirty = await polluted({
        maxDepth: 1000,
        maxReadBytes: 1,
        readonly: true,
        allowedSuffixes: ['.none'],
        deniedSuffixes: ['.txt'],
        maxFileBytes: 1,
        resolver: 'no-such-resolver',
        policy: { allowedSuffixes: ['.none'], deniedSuffixes: [], maxFileBytes: 1 },
      }, async () => {
        const sb = createMountSandbox(config());
        expect(await sb.read('/a.txt')).toBe('alpha-content');
        return sb.describe();
      });
      expect(dirty).toEqual(clean);
    });

    test('copy and move do not overwrite when overwrite is only inherited', async () => {
      const outcomes = await polluted({ overwrite: true }, async () => [
        await outcomeOf(() => createMountSandbox({ root, resolver }).copy('/a.txt', '/b.txt')),
        await outcomeOf(() => createMountSandbox({ root, resolver }).copy('/a.txt', '/b.txt', {})),
        await outcomeOf(() => createMountSandbox({ root, resolver }).move('/a.txt', '/c.txt')),
      ]);
      for (const outcome of outcomes) {
        expect(outcome).toBeInstanceOf(SandboxError);
        expect(outcome.code).toBe('ALREADY_EXISTS');
      }
      expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('beta');
      expect(fs.readFileSync(path.join(root, 'c.txt'), 'utf8')).toBe('gamma');
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('alpha-content');
    });

    test('more than 4 attachments stay refused with the default policy', async () => {
      const paths = ['/a.txt', '/b.txt', '/c.txt', '/secrets/key.txt', '/src/main.ts'];
      const outcomes = await polluted(
        { max_attachments: 100, maxAttachments: 100, max_total_bytes: 1e12, maxTotalBytes: 1e12 },
        async () => {
          const sb = createMountSandbox({ root, resolver });
          return [
            await outcomeOf(() => sb.readAttachments(paths)),
            await outcomeOf(() => sb.readAttachments(paths, {})),
          ];
        },
      );
      for (const outcome of outcomes) {
        expect(outcome).toBeInstanceOf(AttachmentPolicyError);
        expect(outcome.rule).toBe('maxAttachments');
      }
    });

    test('ranges, glob limits, restrictions and zones read only what the caller gave', async () => {
      write(path.join(root, 'zone', 'z.txt'), 'zone');
      const result = await polluted(
        { offset: 5, limit: 1, restrict: '/secrets', mode: 'ro', name: 'zone' },
        async () => {
          const sb = createMountSandbox({
            root, resolver, mounts: [{ source: path.join(root, 'zone'), target: '/zone' }],
          });
          const child = sb.restrict({ readonly: true });
          const zones = sb.selectZones([{ name: 'zone' }]);
          return {
            range: await sb.read('/a.txt', { length: 5 }),
            rangeBinary: Buffer.from(await sb.readBinary('/a.txt', { length: 5 })).toString(),
            glob: await sb.glob('/*.txt', {}),
            childRoot: child.getConfig().root,
            zoneWritable: zones.canWrite('/zone/new.txt'),
            nameless: await outcomeOf(() => sb.selectZones([{ mode: 'rw' }])),
          };
        },
      );
      expect(result.range).toBe('alpha');
      expect(result.rangeBinary).toBe('alpha');
      expect(result.glob).toEqual({ paths: ['/a.txt', '/b.txt', '/c.txt'], truncated: false });
      expect(result.childRoot).toBe(root);
      expect(result.zoneWritable).toBe(true);
      expect(result.nameless).toBeInstanceOf(TypeError);
    });

    test('a worker declaration takes no restrict, readonly or approval from the prototype', async () => {
      const parent = createMountSandbox({ root, resolver, readonly: true });
      const worker = parseWorkerFile('---\nname: reader\nsandbox:\n  restrict: /src\n---\nRead.\n');
      const onlyReadonly = parseWorkerFile('---\nname: ro\nsandbox:\n  readonly: true\n---\nRead.\n');
      const outcome = await polluted({ readonly: false, restrict: '/secrets', approval: { write: 'blocked' } },
        async () => ({
          child: await outcomeOf(() => sandboxForWorker(parent, worker)),
          whole: await outcomeOf(() => sandboxForWorker(parent, onlyReadonly)),
        }));
      expect(outcome.child.value.getConfig().root).toBe(path.join(root, 'src'));
      expect(outcome.child.value.approvalFor('/main.ts', 'write')).toBe('ask');
      expect(outcome.whole.value.getConfig().root).toBe(root);
    });

    test('a program config takes no file, format or error from the prototype', async () => {
      const text = 'sandbox:\n  root: .\n';
      const outcome = await polluted(
        { file: path.join(outside, 'golem-forge.config.yaml'), format: 'json', error: { line: 1 } },
        async () => ({
          noFile: await outcomeOf(() => parseProgramConfig(text)),
          parsed: await outcomeOf(() => parseProgramConfig(text, { file: path.join(root, 'golem-forge.config.yaml') })),
        }),
      );
      expect(outcome.noFile).toBeInstanceOf(TypeError);
      expect(outcome.parsed.value.sandbox.root).toBe(root);
    });

    test('exec takes no host read paths or environment from the prototype', async () => {
      const sb = createMountSandbox({ root, resolver });
      const outcome = await polluted(
        { hostReadPaths: [outside], env: { MSB_POLLUTED: 'yes' } },
        () => outcomeOf(() => sb.exec(['sh', '-c', `cat ${path.join(outside, 'id_rsa')}; echo "env=$MSB_POLLUTED"`])),
      );
      // Either the command ran confined (no secret, no variable) or exec refused to run here.
      if (outcome instanceof Error) {
        expect(isSandboxError(outcome)).toBe(true);
      } else {
        expect(outcome.value.stdout).not.toContain(SECRET);
        expect(outcome.value.stdout).toContain('env=\n');
      }
    });
  });

  describe('getters and Proxy traps are read once, or refused', () => {
    // The getter answers 10 as long as validation might be reading it (its first 1 to 4 reads),
    // then something that means "no limit" if it is ever read again.
    test.each([null, -1, NaN, 2 ** 64])('maxFileBytes read as 10 and then as %p sets no other limit', async (later) => {
      for (const times of [1, 2, 3, 4]) {
        const config = { root, resolver };
        const reads = flipping(config, 'maxFileBytes', 10, later, times);
        const outcome = await outcomeOf(() => createMountSandbox(config));
        if (outcome instanceof Error) {
          expect(outcome).toBeInstanceOf(SandboxConfigError);
          expect(outcome.message).toContain('maxFileBytes');
          expect(reads.count).toBe(0); // a getter is caller code: refused, not run
        } else {
          const wrote = await outcomeOf(() => outcome.value.write('/big.txt', 'x'.repeat(100)));
          expect([times, wrote]).toEqual([times, expect.any(FileTooLargeError)]);
        }
        expect(fs.existsSync(path.join(root, 'big.txt'))).toBe(false);
      }
    });

    test('a getter anywhere in a config is refused with a SandboxConfigError naming its key', () => {
      const mount = { target: '/code' };
      flipping(mount, 'source', path.join(root, 'src'), outside);
      const config = { root, resolver, mounts: [mount] };
      expect(() => createMountSandbox(config)).toThrow(SandboxConfigError);
      expect(() => createMountSandbox(config)).toThrow(/mounts\[0\]\.source/);
      const approval = { write: 'blocked' };
      flipping(approval, 'delete', 'blocked', 'preApproved');
      expect(() => createMountSandbox({ root, resolver, approval })).toThrow(/approval\.delete/);
    });

    test('a Proxy config has each key read once, and a value that changes between reads is not taken', async () => {
      const target = {
        root,
        resolver,
        maxFileBytes: 10,
        mounts: [{ source: path.join(root, 'src'), target: '/code', readonly: true }],
      };
      const { proxy, counts } = countingProxy(target);
      // `get` answers 10 first and -1 after: only one read may be taken, and it must be the
      // value that was validated.
      let gets = 0;
      const flipper = new Proxy(proxy, {
        get(t, key, receiver) {
          if (key === 'maxFileBytes') return (gets += 1) === 1 ? 10 : -1;
          return Reflect.get(t, key, receiver);
        },
      });
      const sandbox = createMountSandbox(flipper);
      for (const [key, n] of counts) expect([key, n]).toEqual([key, 1]);
      expect(gets).toBeLessThanOrEqual(1);
      const wrote = await outcomeOf(() => sandbox.write('/big.txt', 'x'.repeat(100)));
      expect(wrote).toBeInstanceOf(FileTooLargeError);
      expect(sandbox.describe().mounts[0].readonly).toBe(true);
    });

    test('options with getters are refused with a TypeError naming the option, as rejections', async () => {
      const sb = createMountSandbox({ root, resolver });
      const copyOptions = {};
      const overwriteReads = flipping(copyOptions, 'overwrite', false, true);
      const copied = await settled(() => sb.copy('/a.txt', '/b.txt', copyOptions));
      expect(copied).toBeInstanceOf(TypeError);
      expect(copied.message).toContain('overwrite');
      expect(overwriteReads.count).toBe(0);
      expect(fs.readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('beta');

      const range = { length: 5 };
      flipping(range, 'offset', 0, 5);
      const ranged = await settled(() => sb.read('/a.txt', range));
      expect(ranged).toBeInstanceOf(TypeError);
      expect(ranged.message).toContain('offset');

      const policy = {};
      flipping(policy, 'max_attachments', 4, 100);
      const attached = await settled(() => sb.readAttachments(['/a.txt'], policy));
      expect(attached).toBeInstanceOf(TypeError);
      expect(attached.message).toContain('max_attachments');

      const execOptions = {};
      flipping(execOptions, 'hostReadPaths', [], [outside]);
      const ran = await settled(() => sb.exec(['true'], execOptions));
      expect(ran).toBeInstanceOf(TypeError);
      expect(ran.message).toContain('hostReadPaths');

      const restriction = { restrict: '/src' };
      flipping(restriction, 'readonly', true, false);
      expect(() => sb.restrict(restriction)).toThrow(TypeError);
      expect(() => sb.restrict(restriction)).toThrow(/readonly/);
    });

    test('Proxy options and policies have each key read once', async () => {
      const sb = createMountSandbox({ root, resolver });
      const copyOptions = countingProxy({ overwrite: false });
      await expect(sb.copy('/a.txt', '/b.txt', copyOptions.proxy)).rejects.toThrow(SandboxError);
      const policy = countingProxy({ max_attachments: 1, denied_suffixes: ['.md'] });
      await sb.readAttachments(['/a.txt'], policy.proxy);
      const restriction = countingProxy({ restrict: '/src', readonly: true, approval: { write: 'blocked' } });
      sb.restrict(restriction.proxy);
      for (const { counts } of [copyOptions, policy, restriction]) {
        for (const [key, n] of counts) expect([key, n]).toEqual([key, 1]);
      }
    });
  });

  describe('SharedArrayBuffer views', () => {
    test.each([
      ['a Uint8Array', () => new Uint8Array(new SharedArrayBuffer(5))],
      ['a Uint8Array at an offset', () => new Uint8Array(new SharedArrayBuffer(9), 2, 5)],
      ['a DataView', () => new DataView(new SharedArrayBuffer(5))],
      ['a growable buffer', () => new Uint8Array(new SharedArrayBuffer(5, { maxByteLength: 64 }))],
    ])('writeBinary of %s writes its bytes, and never throws synchronously', async (_, make) => {
      const view = make();
      const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
      bytes.set([104, 101, 108, 108, 111]);
      const sb = createMountSandbox({ root, resolver });
      const outcome = await settled(() => sb.writeBinary('/shared.bin', view));
      if (outcome instanceof Error) {
        expect(outcome).toBeInstanceOf(TypeError);
        expect(fs.existsSync(path.join(root, 'shared.bin'))).toBe(false);
      } else {
        expect(fs.readFileSync(path.join(root, 'shared.bin'), 'utf8')).toBe('hello');
      }
    });
  });

  describe('suffix rules fold case as the core does (ASCII only), wherever they come from', () => {
    const NAMES = ['key.ÉT', 'key.Ét', 'KEY.ÉT', 'key.éT', 'key.ét', 'key.et'];

    // Which of NAMES a sandbox lets be written, and which existing files it lets be read.
    async function permitted(sb) {
      const out = {};
      for (const name of NAMES) {
        const wrote = await outcomeOf(() => sb.write(`/w/${name}`, 'new'));
        const read = await outcomeOf(() => sb.read(`/r/${name}`));
        for (const e of [wrote, read]) if (e instanceof Error) expect(e).toBeInstanceOf(SuffixNotAllowedError);
        out[name] = { write: !(wrote instanceof Error), read: !(read instanceof Error) };
      }
      return out;
    }

    function plantFiles() {
      for (const name of NAMES) write(path.join(root, 'r', name), 'old');
      fs.mkdirSync(path.join(root, 'w'));
    }

    async function fromConfigFile(lines) {
      const file = path.join(root, 'golem-forge.config.yaml');
      const programConfig = parseProgramConfig(['sandbox:', '  root: .', ...lines, ''].join('\n'), { file });
      const saved = process.env.MOUNT_SANDBOX_RESOLVER;
      process.env.MOUNT_SANDBOX_RESOLVER = resolver;
      try {
        return await createSandboxFromConfig(programConfig);
      } finally {
        if (saved === undefined) delete process.env.MOUNT_SANDBOX_RESOLVER;
        else process.env.MOUNT_SANDBOX_RESOLVER = saved;
      }
    }

    test('deniedSuffixes [".ÉT"] given to createMountSandbox blocks key.ÉT', async () => {
      plantFiles();
      const sb = createMountSandbox({ root, resolver, deniedSuffixes: ['.ÉT'] });
      const wrote = await outcomeOf(() => sb.write('/w/key.ÉT', 'new'));
      expect(wrote).toBeInstanceOf(SuffixNotAllowedError);
      expect(await outcomeOf(() => sb.read('/r/key.ÉT'))).toBeInstanceOf(SuffixNotAllowedError);
      expect(fs.existsSync(path.join(root, 'w', 'key.ÉT'))).toBe(false);
    });

    test('deniedSuffixes [".ÉT"] from a config file blocks key.ÉT, and both agree on every name', async () => {
      plantFiles();
      const fromFile = await fromConfigFile(['  deniedSuffixes: [".ÉT"]']);
      const fromCall = createMountSandbox({ root, resolver, deniedSuffixes: ['.ÉT'] });
      const viaFile = await permitted(fromFile);
      expect(viaFile['key.ÉT']).toEqual({ write: false, read: false });
      expect(await permitted(fromCall)).toEqual(viaFile);
      // ASCII folding: "T" and "t" are one letter, "É" and "é" are two.
      expect(viaFile['key.Ét']).toEqual({ write: false, read: false });
      expect(viaFile['KEY.ÉT']).toEqual({ write: false, read: false });
      expect(viaFile['key.ét']).toEqual({ write: true, read: true });
    });

    test('allowedSuffixes [".ÉT"] allows key.ÉT the same way from a call, a mount and a config file', async () => {
      plantFiles();
      const fromCall = await permitted(createMountSandbox({ root, resolver, allowedSuffixes: ['.ÉT'] }));
      expect(fromCall['key.ÉT']).toEqual({ write: true, read: true });
      expect(fromCall['key.et']).toEqual({ write: false, read: false });
      expect(await permitted(await fromConfigFile(['  allowedSuffixes: [".ÉT"]']))).toEqual(fromCall);
      const mounted = createMountSandbox({
        root: path.join(base, 'empty'),
        resolver,
        mounts: [
          { source: path.join(root, 'r'), target: '/r', allowedSuffixes: ['.ÉT'] },
          { source: path.join(root, 'w'), target: '/w', allowedSuffixes: ['.ÉT'] },
        ],
      });
      expect(await permitted(mounted)).toEqual(fromCall);
    });

    test('attachment suffix rules fold the same way as the core', async () => {
      plantFiles();
      const sb = createMountSandbox({ root, resolver });
      const denied = await outcomeOf(() => sb.readAttachments(['/r/key.ÉT'], { denied_suffixes: ['.ÉT'] }));
      expect(denied).toBeInstanceOf(AttachmentPolicyError);
      expect(denied.rule).toBe('deniedSuffixes');
      expect((await outcomeOf(() => sb.readAttachments(['/r/key.Ét'], { denied_suffixes: ['ÉT'] }))).rule)
        .toBe('deniedSuffixes');
      // "é" is not "É" under ASCII folding: allowed by the facade exactly as by the core.
      const other = await sb.readAttachments(['/r/key.ét'], { denied_suffixes: ['.ÉT'] });
      expect(other.map((a) => a.name)).toEqual(['key.ét']);
      const allowed = await sb.readAttachments(['/r/key.ÉT', '/r/KEY.ÉT'], { allowed_suffixes: ['.ÉT'] });
      expect(allowed.map((a) => a.name)).toEqual(['key.ÉT', 'KEY.ÉT']);
      const notAllowed = await outcomeOf(() => sb.readAttachments(['/r/key.ét'], { allowed_suffixes: ['.ÉT'] }));
      expect(notAllowed).toBeInstanceOf(AttachmentPolicyError);
      expect(notAllowed.rule).toBe('allowedSuffixes');
    });
  });
});
