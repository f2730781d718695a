'use strict';

// scripts/debian-mirror.sh: the scripts that download other Debian releases take the archive from
// this machine's apt configuration, in either format, and name no host of their own.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { tempDirEach } = require('./helpers');

const ROOT = path.join(__dirname, '..');
const SCRIPT = path.join(ROOT, 'scripts/debian-mirror.sh');

let etc;
tempDirEach('msb-apt-', (dir) => {
  etc = dir;
  fs.mkdirSync(path.join(etc, 'sources.list.d'));
});

function mirror(files, env = {}) {
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(etc, name), text);
  const result = spawnSync('bash', [SCRIPT], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, MSB_APT_ETC: etc, MSB_DEBIAN_CODENAME: 'bookworm', ...env },
  });
  return { code: result.status, out: result.stdout.trim(), err: result.stderr.trim() };
}

test('a one-line sources.list: the entry for this release\'s main, not security, updates or third parties', () => {
  expect(mirror({
    'sources.list': [
      '# deb http://commented.invalid/debian bookworm main',
      'deb http://security.invalid/debian-security bookworm-security main',
      'deb https://vendor.invalid/apt stable main',
      'deb [arch=amd64 signed-by=/k.gpg] http://mirror.invalid/debian/ bookworm contrib main non-free',
      'deb http://later.invalid/debian bookworm main',
    ].join('\n'),
  })).toEqual({ code: 0, out: 'http://mirror.invalid/debian', err: '' });
});

test('deb822 .sources: several URIs and suites, disabled stanzas and deb-src skipped', () => {
  expect(mirror({
    'sources.list.d/debian.sources': [
      'Types: deb',
      'URIs: http://disabled.invalid/debian',
      'Suites: bookworm',
      'Components: main',
      'Enabled: no',
      '',
      'Types: deb-src',
      'URIs: http://source.invalid/debian',
      'Suites: bookworm',
      'Components: main',
      '',
      '# a comment between stanzas',
      'Types: deb',
      'URIs: http://first.invalid/debian http://second.invalid/debian',
      'Suites: bookworm-updates bookworm',
      'Components: main',
    ].join('\n'),
  })).toEqual({ code: 0, out: 'http://first.invalid/debian', err: '' });
});

test('no source for this release: a message naming the override, and no output', () => {
  const result = mirror({ 'sources.list.d/other.list': 'deb http://mirror.invalid/debian trixie main\n' });
  expect(result.code).toBe(1);
  expect(result.out).toBe('');
  expect(result.err).toContain('no apt source');
  expect(result.err).toContain('bookworm main');
  expect(result.err).toContain('MSB_DEBIAN_MIRROR');
});

test('MSB_DEBIAN_MIRROR wins over apt\'s configuration', () => {
  expect(mirror({ 'sources.list': 'deb http://mirror.invalid/debian bookworm main\n' }, { MSB_DEBIAN_MIRROR: 'http://proxy.invalid/debian/' }))
    .toEqual({ code: 0, out: 'http://proxy.invalid/debian', err: '' });
});

test('the scripts and CI name no package archive host', () => {
  const files = ['.ci/run', ...fs.readdirSync(path.join(ROOT, 'scripts')).map((f) => `scripts/${f}`)];
  const named = files.filter((file) => /https?:\/\/(?!<)[a-z0-9.-]+\.[a-z]{2,}/i.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
  expect(named).toEqual([]);
});
