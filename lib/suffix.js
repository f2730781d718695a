'use strict';

// Suffix rules compare the way the core does (has_suffix in src/fs/policy.cc, and the config file
// parser): ASCII letters fold to lower case, every other character must match exactly, so ".ÉT"
// matches "key.Ét" but not "key.ét". One rule wherever a suffix is written (a config given to
// createMountSandbox, a program config file, an attachment policy): Unicode case mapping in JS
// would make the facade and the core disagree about the same rule. Comparing UTF-16 here and
// UTF-8 bytes there agrees because a suffix starts with "." and both strings are well-formed.

function foldSuffix(text) {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

function hasSuffix(name, suffix) {
  return name.length >= suffix.length && foldSuffix(name.slice(name.length - suffix.length)) === foldSuffix(suffix);
}

module.exports = { foldSuffix, hasSuffix };
