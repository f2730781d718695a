'use strict';

// `npm start`: a worker and a sub-worker on the bundled example project, with real reads and
// writes and a series of escape attempts, each refused with the message a model would see.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const {
  createMountSandbox,
  createSandboxFromConfig,
  findProgramConfig,
  isSandboxError,
  loadWorkerFile,
  openat2Supported,
  sandboxForWorker,
} = require('../lib');

function copyExample() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mount-sandbox-demo-'));
  fs.cpSync(path.join(__dirname, 'project'), path.join(work, 'project'), { recursive: true });
  fs.cpSync(path.join(__dirname, 'cache'), path.join(work, 'cache'), { recursive: true });
  fs.cpSync(path.join(__dirname, 'workers'), path.join(work, 'workers'), { recursive: true });
  fs.copyFileSync(path.join(__dirname, 'golem-forge.config.yaml'), path.join(work, 'golem-forge.config.yaml'));
  // Hostile plants an agent might find in a cloned repository.
  fs.symlinkSync('/etc/passwd', path.join(work, 'project', 'passwd-link'));
  fs.symlinkSync('../../cache', path.join(work, 'project', 'src', 'sneaky'));
  execFileSync('mkfifo', [path.join(work, 'project', 'hang.fifo')]);
  return work;
}

async function step(label, action) {
  try {
    const result = await action();
    const shown = typeof result === 'string' ? JSON.stringify(result.trim()) : JSON.stringify(result);
    console.log(`  ok       ${label}${result === undefined ? '' : ` -> ${shown}`}`);
  } catch (err) {
    if (!isSandboxError(err)) throw err;
    console.log(`  refused  ${label}\n           ${err.code}: ${err.toLLMMessage()}`);
  }
}

async function main() {
  const work = copyExample();
  try {
    const sandbox = createMountSandbox({
      root: path.join(work, 'project'),
      mounts: [{ source: path.join(work, 'cache'), target: '/cache', readonly: true }],
    });
    console.log(`mount-sandbox demo (resolver: ${openat2Supported() ? 'openat2' : 'component walk'})`);
    console.log('main worker: / = example project (read-write), /cache = package cache (read-only)\n');
    await step('list /', () => sandbox.list('/'));
    await step('read /src/app.ts', () => sandbox.read('/src/app.ts'));
    await step('write /out/summary.md', () => sandbox.write('/out/summary.md', '# Summary\nThe app greets.\n'));
    await step('read /out/summary.md', () => sandbox.read('/out/summary.md'));
    await step('read /cache/packages.json', () => sandbox.read('/cache/packages.json'));

    console.log('\nescape attempts by the main worker:');
    await step('read /../../etc/passwd', () => sandbox.read('/../../etc/passwd'));
    await step('read /passwd-link (symlink to /etc/passwd)', () => sandbox.read('/passwd-link'));
    await step('read /hang.fifo (would block a naive reader forever)', () => sandbox.read('/hang.fifo'));
    await step('write /cache/packages.json (read-only mount)', () => sandbox.write('/cache/packages.json', '{}'));
    await step('delete /cache (a mount point)', () => sandbox.delete('/cache'));
    await step('read relative path src/app.ts', () => sandbox.read('src/app.ts'));

    const reviewer = sandbox.restrict({ restrict: '/src', readonly: true });
    console.log('\nsub-worker "reviewer": restrict /src, read-only');
    await step('list /', () => reviewer.list('/'));
    await step('read /app.ts', () => reviewer.read('/app.ts'));
    await step('read /../secrets/api-key.txt', () => reviewer.read('/../secrets/api-key.txt'));
    await step('exists /secrets/api-key.txt', () => reviewer.exists('/secrets/api-key.txt'));
    await step('read /sneaky/packages.json (symlink out of its subtree)', () => reviewer.read('/sneaky/packages.json'));
    await step('write /app.ts', () => reviewer.write('/app.ts', 'pwned'));
    await step('restrict({ readonly: false }) (escalation)', () => reviewer.restrict({ readonly: false }));

    await programDemo(work);
    await shellDemo(work, sandbox);

    const unchanged = fs.readFileSync(path.join(work, 'project', 'src', 'app.ts'), 'utf8').includes('greet');
    console.log(`\nhost check: src/app.ts unchanged: ${unchanged}; out/summary.md written: ${fs.existsSync(path.join(work, 'project', 'out', 'summary.md'))}`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

// Part two: the same project driven by golem-forge.config.yaml and .worker declarations, the
// way golem-forge's CLI and call_worker use them.
async function programDemo(work) {
  const config = await findProgramConfig(path.join(work, 'project', 'src'));
  console.log(`\nprogram config found by walking up: ${path.relative(work, config.file)}`);
  const main = await createSandboxFromConfig(config);
  console.log('main worker: writes preApproved, deletes blocked, no .key/.pem files, /cache only .json');
  await step('approvalFor /notes.md write', () => main.approvalFor('/notes.md', 'write'));
  await step('edit /src/app.ts (replace one exact occurrence)', () => main.edit('/src/app.ts', 'Hello', 'Hi'));
  await step('read /src/app.ts lines via offset/length', () => main.read('/src/app.ts', { offset: 0, length: 40 }));
  await step('glob /**/*.md', async () => (await main.glob('/**/*.md')).paths);
  await step('copy /cache/packages.json -> /vendor/packages.json', () => main.copy('/cache/packages.json', '/vendor/packages.json'));
  await step('delete /README.md (delete: blocked)', () => main.delete('/README.md'));
  await step('write /deploy.key (denied suffix)', () => main.write('/deploy.key', 'secret'));
  await step('read attachments for a child worker', async () =>
    (await main.readAttachments(['/README.md', '/docs/notes.md'])).map((a) => `${a.name} ${a.mimeType} ${a.data.length}B`));
  await step('5 attachments (policy allows 4)', () =>
    main.readAttachments(['/README.md', '/docs/notes.md', '/src/app.ts', '/cache/packages.json', '/vendor/packages.json']));

  for (const file of ['reviewer.worker', 'editor.worker', 'validator.worker']) {
    const worker = await loadWorkerFile(path.join(work, 'workers', file));
    const child = sandboxForWorker(main, worker);
    console.log(`\ncall_worker ${worker.name} (sandbox: ${worker.sandbox.kind}) -> ${child ? `sees ${JSON.stringify(await child.list('/'))}` : 'no sandbox (pure function)'}`);
    if (!child) continue;
    await step('write /notes.txt', () => child.write('/notes.txt', 'hello'));
    await step('approvalFor /notes.txt write', () => child.approvalFor('/notes.txt', 'write'));
  }
}

// Part three: shell commands confined by the kernel to the same boundaries (sandbox.exec). They
// see the sandbox at /workspace and nothing of the host beside it, so every attempt here is made
// with the paths a command can know: its own, and where the project's neighbours would be.
async function shellDemo(work, sandbox) {
  // A secret next to the project on the host: `../home` from the sandbox's root.
  fs.mkdirSync(path.join(work, 'home', '.ssh'), { recursive: true });
  fs.writeFileSync(path.join(work, 'home', '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  const cacheFile = path.join(work, 'cache', 'packages.json');
  const shell = async (label, view, argv, options) => {
    try {
      const r = await view.exec(argv, options);
      const lines = (r.stdout + r.stderr).trim().split('\n').filter(Boolean);
      console.log(`  exit ${String(r.exitCode).padEnd(3)} ${label}`);
      for (const line of lines.slice(0, 4)) console.log(`           ${line}`);
      return r;
    } catch (err) {
      if (!isSandboxError(err)) throw err;
      console.log(`  refused  ${label}\n           ${err.code}: ${err.message}`);
      return null;
    }
  };
  console.log('\nshell commands (sandbox.exec), confined by the kernel; the sandbox is at /workspace:');
  const first = await shell('sh -c "pwd; ls; head -1 app.ts" in /src', sandbox, ['sh', '-c', 'pwd; ls; head -1 app.ts'], { cwd: '/src' });
  if (first) console.log(`           layers: ${first.enforcement.layers.join(', ')}`);
  await shell('sh -c "echo /*" (the whole root: nothing else of the host)', sandbox, ['sh', '-c', 'echo /*']);
  await shell('cat ../home/.ssh/id_ed25519 (a secret beside the project on the host)', sandbox, ['cat', '../home/.ssh/id_ed25519']);
  await shell('write into the read-only /cache', sandbox, ['sh', '-c', 'echo pwned > cache/packages.json']);
  await shell('chmod 666 on the read-only /cache', sandbox, ['chmod', '666', 'cache/packages.json']);
  await shell('node: TCP connect to 1.1.1.1:80 (network off)', sandbox, [process.execPath, '-e',
    "require('net').connect(80, '1.1.1.1').on('error', (e) => { console.error(e.message); process.exit(1); })"]);
  const reviewer = sandbox.restrict({ restrict: '/src', readonly: true });
  await shell('reviewer: touch app.ts (its view is read-only)', reviewer, ['touch', 'app.ts']);
  await shell('reviewer: cat ../secrets/api-key.txt (outside its view)', reviewer, ['cat', '../secrets/api-key.txt']);
  const intact = fs.readFileSync(cacheFile, 'utf8') !== 'pwned\n' && (fs.statSync(cacheFile).mode & 0o777) !== 0o666;
  console.log(`  host check: /cache/packages.json unchanged (content and mode): ${intact}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
