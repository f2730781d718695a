'use strict';

// The launcher's stage names are a contract between src/launcher/launch_stage.h (what msb-launch
// reports) and lib/exec/refusal.js (what turns them into typed errors): a stage renamed on one side would
// silently lose its message on the other. This checks the facade's names against the header.
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const read = (file) => fs.readFileSync(path.join(ROOT, file), 'utf8');

function launcherStages() {
  const header = read('src/launcher/launch_stage.h');
  const names = [...header.matchAll(/case LaunchStage::(\w+): return "([a-z-]+)";/g)];
  const members = header.slice(header.indexOf('enum class LaunchStage'), header.indexOf('};')).match(/^\s+(\w+),/gm);
  return { names: names.map((m) => m[2]), members: members.map((m) => m.trim().slice(0, -1)), cases: names.map((m) => m[1]) };
}

// Every stage name lib/ compares with or keys a message by.
function facadeStages() {
  const found = new Set();
  for (const file of ['lib/exec/exec.js', 'lib/exec/refusal.js', 'lib/exec/apparmor.js']) {
    const text = read(file);
    for (const m of text.matchAll(/stage === '([a-z-]+)'/g)) found.add(m[1]);
    const messages = text.indexOf('const STAGES = {');
    if (messages >= 0) {
      const block = text.slice(messages, text.indexOf('\n};', messages));
      for (const m of block.matchAll(/^ {2}'([a-z-]+)': \(/gm)) found.add(m[1]);
    }
  }
  return [...found];
}

test('every launcher stage has exactly one name, and the launcher reports stages only through the enum', () => {
  const { names, members, cases } = launcherStages();
  expect(cases).toEqual(members);
  expect(new Set(names).size).toBe(names.length);
  // No stage spelled as a string literal in main: fail() takes a LaunchStage.
  expect(read('src/launcher/launcher_main.cc')).not.toMatch(/fail\("/);
});

test('every stage the facade handles is one the launcher reports', () => {
  const { names } = launcherStages();
  const handled = facadeStages();
  expect(handled.length).toBeGreaterThanOrEqual(9);
  for (const stage of handled) expect([stage, names.includes(stage)]).toEqual([stage, true]);
});
