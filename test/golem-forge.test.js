'use strict';

// The golem-forge wiring the README shows (test/golem-forge/src: a shell toolset that runs its
// commands with sandbox.exec, and the sandbox module keeping golem-forge's own implementation as
// a fallback). golem-forge's code is not here: test/golem-forge/contract/core.d.ts and the .d.ts
// files beside the wiring state, as we read them at its commit 8cdb671, the types the wiring uses;
// tsc checks the wiring against them with golem-forge's compiler options. Then the wiring runs,
// compiled, against a real sandbox, with stand-ins below for golem-forge's modules that behave as
// those declarations say. test/readme.test.js holds the README's blocks to these files.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { needs } = require('./exec-helpers');
const { execFileSync } = require('child_process');
const ts = require('typescript');
const mountSandbox = require('..');

const DIR = path.join(__dirname, 'golem-forge');
const SHELL_TOOLSET = path.join(DIR, 'src', 'tools', 'shell', 'index.ts');
const SANDBOX_MODULE = path.join(DIR, 'src', 'sandbox', 'index.ts');

test('the wiring typechecks against golem-forge\'s types, and the mistakes in mistakes.ts do not', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  let out;
  try {
    out = execFileSync(process.execPath, [tsc, '-p', DIR], { encoding: 'utf8' });
  } catch (e) {
    out = e.stdout || String(e);
  }
  expect(out.trim()).toBe('');
});

// A TypeScript file of test/golem-forge/src as a CommonJS module whose imports are `modules`.
function load(file, modules) {
  const { outputText } = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    fileName: file,
  });
  const module = { exports: {} };
  const importOf = (name) => {
    if (!(name in modules)) throw new Error(`${path.basename(file)} imports ${name}, which the test does not provide`);
    return modules[name];
  };
  new Function('exports', 'require', 'module', outputText)(module.exports, importOf, module);
  return module.exports;
}

// '@golem-forge/core' as contract/core.d.ts states it: the toolset registry and BlockedError.
function golemForgeCore() {
  const factories = new Map();
  class BlockedError extends Error {
    constructor(toolName, reason) {
      super(`${toolName} blocked: ${reason}`);
      this.name = 'BlockedError';
      this.toolName = toolName;
      this.reason = reason;
    }
  }
  const ToolsetRegistry = {
    register(name, factory, options) {
      if (factories.has(name) && !(options && options.allowReplace)) throw new Error(`${name} is registered`);
      factories.set(name, factory);
    },
    get: (name) => factories.get(name),
    has: (name) => factories.has(name),
    list: () => [...factories.keys()],
  };
  return { BlockedError, ToolsetRegistry };
}

// golem-forge's tools/shell.ts as src/tools/shell.d.ts states it; createShellTool's execute
// would spawn on the host, so the stand-in's throws.
function golemForgeShell() {
  class ShellError extends Error {}
  class ShellBlockedError extends ShellError {}
  const BLOCKED_METACHARACTERS = ['|', '>', '<', ';', '&', '`', '$(', '${'];
  const matchShellRules = (command, rules, defaultConfig) => {
    const rule = rules.find((r) => command.startsWith(r.pattern));
    if (rule) return { approval: rule.approval, matchedRule: true };
    return { approval: defaultConfig ? defaultConfig.approval : 'blocked', matchedRule: false };
  };
  return {
    DEFAULT_TIMEOUT: 30,
    MAX_TIMEOUT: 300,
    MAX_OUTPUT_BYTES: 50 * 1024,
    BLOCKED_METACHARACTERS,
    ShellError,
    ShellBlockedError,
    ShellConfigSchema: {
      parse: (value) => ({ rules: value.rules || [], ...(value.default ? { default: value.default } : {}) }),
    },
    checkMetacharacters(command) {
      const found = BLOCKED_METACHARACTERS.find((c) => command.includes(c));
      if (found) throw new ShellBlockedError(`Command contains blocked metacharacter '${found}'`);
    },
    parseCommand(command) {
      // Enough of shlex for these tests: words, and quoted words without escapes.
      const words = [];
      const re = /\s*(?:"([^"]*)"|'([^']*)'|([^\s"']+))/y;
      let m;
      let at = 0;
      while (at < command.length && (m = re.exec(command))) {
        words.push(m[1] ?? m[2] ?? m[3]);
        at = re.lastIndex;
      }
      if (command.slice(at).trim() !== '') throw new ShellBlockedError('Cannot parse command: open quote');
      return words;
    },
    matchShellRules,
    createShellTool: ({ config }) => ({
      name: 'shell',
      description: 'spawns on the host',
      inputSchema: { stands: 'for the zod input schema' },
      needsApproval: ({ command }) => matchShellRules(command, config.rules, config.default).approval === 'ask',
      execute: () => {
        throw new Error('the host shell ran');
      },
    }),
  };
}

describe('the shell toolset (src/tools/shell/index.ts)', () => {
  let base;
  let sandbox;
  let core;
  let toolset;
  const shellTool = (config, approvalController = {}) => {
    const tools = toolset.shellToolsetFactory({ sandbox, approvalController, config });
    expect(tools).toHaveLength(1);
    return tools[0];
  };
  const run = (tool, input) => tool.execute(input, { toolCallId: 't', messages: [] });

  beforeAll(async () => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-golem-shell-'));
    sandbox = await mountSandbox.createMountSandboxAsync({ root: path.join(base, 'root') });
    await sandbox.write('/src/app.ts', 'export {};\n');
    await sandbox.write('/src/big.txt', 'x'.repeat(200_000));
    core = golemForgeCore();
    toolset = load(SHELL_TOOLSET, {
      '@golem-forge/core': core,
      'mount-sandbox': mountSandbox,
      '../shell.js': golemForgeShell(),
    });
  });
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  needs(['copy-on-write'])('a pre-approved command\'s changes in ask places go to the approval controller; denied, they are dropped', async () => {
    const asked = [];
    const answering = (approved) => ({
      requestApproval: async (request) => {
        asked.push(request);
        return { approved, remember: 'none', ...(approved ? {} : { note: 'not now' }) };
      },
    });
    await sandbox.mkdir('/held'); // apart from /src, whose listing the other tests check
    const rules = { rules: [{ pattern: 'touch ', approval: 'preApproved' }], default: { approval: 'ask' }, cwd: '/held' };
    const yes = await run(shellTool(rules, answering(true)), { command: 'touch approved.txt', timeout: 30 });
    expect(yes.stderr).toMatch(/\nThe user approved these changes: \/held\/approved\.txt landed\n$/);
    expect(asked[0]).toMatchObject({ toolName: 'shell', toolArgs: { command: 'touch approved.txt', changes: ['/held/approved.txt'] } });
    expect(await sandbox.exists('/held/approved.txt')).toBe(true);
    const no = await run(shellTool(rules, answering(false)), { command: 'touch denied.txt', timeout: 30 });
    expect(no.stderr).toMatch(/\nThe user did not approve these changes; they were dropped: \/held\/denied\.txt \(not now\)\n$/);
    expect(await sandbox.exists('/held/denied.txt')).toBe(false);
    // A command the user was asked about lands whole, with no second prompt.
    const count = asked.length;
    await run(shellTool({ ...rules, rules: [] }, answering(false)), { command: 'touch asked.txt', timeout: 30 });
    expect(asked.length).toBe(count);
    expect(await sandbox.exists('/held/asked.txt')).toBe(true);
  });

  test('registers itself as the toolset "shell"', () => {
    expect(core.ToolsetRegistry.list()).toEqual(['shell']);
    expect(core.ToolsetRegistry.get('shell')).toBe(toolset.shellToolsetFactory);
  });

  test('refuses a worker without a sandbox, or with one not made by mount-sandbox', () => {
    const fileOps = { read: async () => '', resolve: (p) => p, isValidPath: () => true };
    for (const other of [undefined, fileOps]) {
      expect(() => toolset.shellToolsetFactory({ sandbox: other, approvalController: {}, config: {} }))
        .toThrow('The shell toolset needs a sandbox made by mount-sandbox.');
    }
  });

  test('keeps golem-forge\'s tool (name, input schema, approvals) and replaces how it runs', () => {
    const tool = shellTool({ rules: [{ pattern: 'git ', approval: 'preApproved' }], default: { approval: 'ask' } });
    expect(tool.name).toBe('shell');
    expect(tool.inputSchema).toEqual({ stands: 'for the zod input schema' });
    expect(tool.needsApproval({ command: 'git status' })).toBe(false);
    expect(tool.needsApproval({ command: 'ls' })).toBe(true);
    expect(tool.description).not.toContain('spawns');
  });

  test('runs the parsed argv in the sandbox, from cwd, where the description says commands start', async () => {
    const tool = shellTool({ default: { approval: 'preApproved' }, cwd: '/src' });
    const pwd = await run(tool, { command: 'pwd', timeout: 30 });
    expect(pwd).toEqual({ stdout: '/workspace/src\n', stderr: '', exitCode: 0, truncated: false });
    expect(tool.description).toContain("The file tools' path /x is /workspace/x inside commands, which start in /workspace/src,");
    expect(shellTool({ default: { approval: 'ask' } }).description).toContain('which start in /workspace,');
    // Quoted words stay one argument; the file written through the sandbox is there.
    const listed = await run(tool, { command: "ls -1 '/workspace/src' app.ts", timeout: 30 });
    expect(listed.stdout).toBe('app.ts\n\n/workspace/src:\napp.ts\nbig.txt\n');
    const outside = await run(tool, { command: 'cat /etc/shadow', timeout: 30 });
    expect(outside.exitCode).not.toBe(0);
    expect(outside.stdout).toBe('');
  });

  test('passes env, and a missing program is 127 as in golem-forge', async () => {
    const tool = shellTool({ default: { approval: 'preApproved' }, env: { GREETING: 'hello' } });
    expect((await run(tool, { command: 'printenv GREETING', timeout: 30 })).stdout).toBe('hello\n');
    expect((await run(tool, { command: 'printenv CI', timeout: 30 })).exitCode).toBe(1);
    const missing = await run(tool, { command: 'no-such-program', timeout: 30 });
    expect([missing.exitCode, missing.stderr]).toEqual([127, 'Command not found: no-such-program']);
  });

  test('caps each stream at golem-forge\'s 50 KiB and says so', async () => {
    const tool = shellTool({ default: { approval: 'preApproved' }, cwd: '/src' });
    const big = await run(tool, { command: 'cat big.txt', timeout: 30 });
    expect(big.stdout).toBe('x'.repeat(51_200));
    expect(big.truncated).toBe(true);
  });

  test('the timeout is in seconds (the default 30), and a command past it is killed', async () => {
    const tool = shellTool({ default: { approval: 'preApproved' } });
    expect((await run(tool, { command: 'sleep 0.2' })).exitCode).toBe(0); // no timeout given
    expect((await run(tool, { command: 'sleep 0.2', timeout: 1 })).exitCode).toBe(0);
    const started = Date.now();
    const slow = await run(tool, { command: 'sleep 20', timeout: 1 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(slow.exitCode).toBe(-1);
    expect(slow.stderr).toContain('Command timed out after 1000 ms');
  });

  test('refuses metacharacters, unparsable and empty commands without running anything', async () => {
    const tool = shellTool({ default: { approval: 'preApproved' }, cwd: '/src' });
    const redirect = await run(tool, { command: 'touch made > out.txt', timeout: 30 });
    expect(redirect).toEqual({
      stdout: '',
      stderr: "Command contains blocked metacharacter '>'",
      exitCode: 1,
      truncated: false,
    });
    expect(await run(tool, { command: "touch 'made", timeout: 30 })).toMatchObject({ exitCode: 1, stdout: '' });
    expect(await run(tool, { command: '  ', timeout: 30 })).toEqual({
      stdout: '',
      stderr: 'Empty command',
      exitCode: 1,
      truncated: false,
    });
    expect(await sandbox.list('/src')).toEqual(['app.ts', 'big.txt']);
  });

  test('a command the rules block, or that no rule or default allows, throws BlockedError', async () => {
    const tool = shellTool({ rules: [{ pattern: 'rm ', approval: 'blocked' }], default: { approval: 'preApproved' }, cwd: '/src' });
    await expect(run(tool, { command: 'rm app.ts', timeout: 30 })).rejects.toBeInstanceOf(core.BlockedError);
    const noDefault = shellTool({ rules: [{ pattern: 'ls', approval: 'preApproved' }], cwd: '/src' });
    await expect(run(noDefault, { command: 'touch made', timeout: 30 })).rejects.toThrow('shell blocked');
    expect((await run(noDefault, { command: 'ls', timeout: 30 })).exitCode).toBe(0);
    expect(await sandbox.list('/src')).toEqual(['app.ts', 'big.txt']);
  });
});

describe('the sandbox module keeping golem-forge\'s own implementation (src/sandbox/index.ts)', () => {
  const own = {
    MountSandboxImpl: class OwnSandbox {},
    createMountSandbox: (config) => ({ own: config }),
    createMountSandboxAsync: async (config) => ({ ownAsync: config }),
    createTestSandbox: async () => ({ ownTest: true }),
  };
  const loadWith = (pkg) => load(SANDBOX_MODULE, { 'mount-sandbox': pkg, './mount-sandbox.js': own });

  test('uses mount-sandbox where isSupported() says so', async () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'msb-golem-fallback-'));
    try {
      const module = loadWith(mountSandbox);
      expect(module.MountSandboxImpl).toBe(mountSandbox.MountSandbox);
      expect(module.createMountSandbox({ root: base })).toBeInstanceOf(mountSandbox.MountSandbox);
      const made = await module.createMountSandboxAsync({ root: path.join(base, 'made') });
      expect(made).toBeInstanceOf(mountSandbox.MountSandbox);
      expect(fs.statSync(path.join(base, 'made')).isDirectory()).toBe(true);
      expect(await module.createTestSandbox()).toBeInstanceOf(mountSandbox.MountSandbox);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  test('falls back to golem-forge\'s own where it does not', async () => {
    const unsupported = {
      ...mountSandbox,
      isSupported: () => ({ supported: false, reason: 'not Linux', exec: { supported: false, reason: 'not Linux' } }),
    };
    const module = loadWith(unsupported);
    expect(module.MountSandboxImpl).toBe(own.MountSandboxImpl);
    expect(module.createMountSandbox({ root: '/p' })).toEqual({ own: { root: '/p' } });
    expect(await module.createMountSandboxAsync({ root: '/p' })).toEqual({ ownAsync: { root: '/p' } });
    expect(await module.createTestSandbox()).toEqual({ ownTest: true });
  });
});
