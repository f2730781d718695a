'use strict';

// The outside projects the documentation names, each with the page a reader follows to it (its
// repository, or its own documentation; never a package registry), and where a page names one in
// its prose. test/doc-links.test.js holds every page that names a project to linking it.
const PROJECTS = [
  { name: 'golem-forge', pattern: /(?<![\w@/.-])golem-forge(?![\w/-]|\.\w)/, url: 'https://github.com/zby/golem-forge' },
  { name: 'the MCP TypeScript SDK', pattern: /\bMCP SDK\b/, url: 'https://github.com/modelcontextprotocol/typescript-sdk' },
  { name: 'the official filesystem server', pattern: /\bofficial filesystem server\b/, url: 'https://github.com/modelcontextprotocol/servers/tree/main/src/filesystem' },
  { name: 'Landlock', pattern: /\bLandlock\b/, url: 'https://docs.kernel.org/userspace-api/landlock.html' },
  { name: 'seccomp', pattern: /\bseccomp\b/, url: 'https://docs.kernel.org/userspace-api/seccomp_filter.html' },
  { name: 'overlayfs', pattern: /\boverlayfs\b/, url: 'https://docs.kernel.org/filesystems/overlayfs.html' },
  { name: 'AppArmor', pattern: /\bAppArmor\b/, url: 'https://apparmor.net/' },
  { name: 'sandbox-runtime', pattern: /\bsandbox-runtime\b/, url: 'https://github.com/anthropic-experimental/sandbox-runtime' },
  { name: 'bubblewrap', pattern: /\bbubblewrap\b/, url: 'https://github.com/containers/bubblewrap' },
  { name: 'ripgrep', pattern: /\bripgrep\b/, url: 'https://github.com/BurntSushi/ripgrep' },
  { name: 'RE2', pattern: /\bRE2\b/, url: 'https://github.com/google/re2' },
  { name: 'PCRE2', pattern: /\bPCRE2\b/, url: 'https://github.com/PCRE2Project/pcre2' },
  { name: 'yaml-cpp', pattern: /\byaml-cpp\b/, url: 'https://github.com/jbeder/yaml-cpp' },
  { name: 'simdjson', pattern: /(?<![\w@/.-])simdjson\b/, url: 'https://github.com/simdjson/simdjson' },
  { name: 'node-addon-api', pattern: /\bnode-addon-api\b/, url: 'https://github.com/nodejs/node-addon-api' },
  { name: 'GoogleTest', pattern: /\bGoogleTest\b/, url: 'https://github.com/google/googletest' },
  { name: 'libFuzzer', pattern: /\blibFuzzer\b/, url: 'https://llvm.org/docs/LibFuzzer.html' },
  { name: 'QEMU', pattern: /\bqemu(?!-)\b/i, url: 'https://www.qemu.org/' },
  { name: 'Jest', pattern: /\bJest\b/, url: 'https://jestjs.io/' },
  { name: 'Vitest', pattern: /\bVitest\b/, url: 'https://vitest.dev/' },
  { name: 'esbuild', pattern: /(?<![\w@/.-])esbuild\b/, url: 'https://esbuild.github.io/' },
  { name: 'Docker', pattern: /\bDocker\b/, url: 'https://docs.docker.com/engine/storage/bind-mounts/' },
  { name: 'Claude Code', pattern: /\bClaude Code\b/, url: 'https://code.claude.com/docs/en/mcp' },
  { name: 'Cursor', pattern: /\bCursor\b/, url: 'https://cursor.com/docs/mcp' },
  { name: 'VS Code', pattern: /\bVS Code\b/, url: 'https://code.visualstudio.com/docs/copilot/reference/mcp-configuration' },
  { name: 'Codex', pattern: /\bCodex\b/, url: 'https://github.com/openai/codex' },
];

// Where a page's text is not prose a link could go in: code blocks, code spans, links (their text
// and target), HTML comments, headings and bare addresses. A mask of the text, true where masked.
function maskOf(text) {
  const mask = new Array(text.length).fill(false);
  const cover = (re) => {
    for (const m of text.matchAll(re)) mask.fill(true, m.index, m.index + m[0].length);
  };
  cover(/^\s*```[^\n]*\n[\s\S]*?^\s*```$/gm);
  cover(/<!--[\s\S]*?-->/g);
  cover(/^#{1,6} .*$/gm);
  cover(/\[[^\]]*\]\([^)]*\)/g);
  cover(/https?:\/\/\S+/g);
  // Code spans outside the blocks already covered.
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '`' || (mask[i] && open < 0)) continue;
    if (open < 0) open = i;
    else {
      mask.fill(true, open, i + 1);
      open = -1;
    }
  }
  return mask;
}

// The first place in `text` where `pattern` names the project in prose, or null.
function firstMention(text, pattern, mask = maskOf(text)) {
  const re = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  for (const m of text.matchAll(re)) {
    if (!mask.slice(m.index, m.index + m[0].length).some(Boolean)) return { index: m.index, text: m[0] };
  }
  return null;
}

module.exports = { PROJECTS, maskOf, firstMention };
