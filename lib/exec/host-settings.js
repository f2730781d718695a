'use strict';

// The kernel settings that keep unprivileged user namespaces off, read from /proc/sys, and the
// command that turns each on: Debian's kernel.unprivileged_userns_clone (0 refuses them to every
// user but root) and user.max_user_namespaces (0 refuses them to everyone, root included).
// Ubuntu's AppArmor restriction is lib/exec/apparmor.js's. The launcher is what decides
// (lib/exec/probe.js asks it); these say why it refused and what to run.
const { fs } = require('../common/builtins');

// A typical default (the kernel's is half its thread limit); any positive number allows them.
const MAX_USER_NAMESPACES = 10000;

const SETTINGS = [
  {
    name: 'kernel.unprivileged_userns_clone',
    file: '/proc/sys/kernel/unprivileged_userns_clone',
    // Root keeps CAP_SYS_ADMIN, which this setting does not restrict.
    blocks: (value) => value === 0 && process.geteuid?.() !== 0,
    on: 1,
  },
  {
    name: 'user.max_user_namespaces',
    file: '/proc/sys/user/max_user_namespaces',
    blocks: (value) => value === 0,
    on: MAX_USER_NAMESPACES,
  },
];

function readNumber(file) {
  try {
    const value = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(value) ? value : null;
  } catch {
    return null;
  }
}

// Each setting as this process sees it: { name, value (null where the kernel has none),
// blocks (whether it keeps this process from user namespaces), command (what turns it on) }.
function namespaceSettings() {
  return SETTINGS.map(({ name, file, blocks, on }) => {
    const value = readNumber(file);
    return { name, value, blocks: value !== null && blocks(value), command: `sudo sysctl -w ${name}=${on}` };
  });
}

// The sentence a refusal adds where a setting keeps user namespaces off, or ''.
function namespaceSettingHint() {
  const blocking = namespaceSettings().filter((s) => s.blocks);
  if (blocking.length === 0) return '';
  const said = blocking.map((s) => `${s.name} = ${s.value}`).join(' and ');
  const commands = blocking.map((s) => `\`${s.command}\``).join(' and ');
  return ` Here ${said}: ${commands} turns them on.`;
}

module.exports = { namespaceSettings, namespaceSettingHint };
