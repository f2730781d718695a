'use strict';

// A git-style unified diff of two texts, line by line, for edit_file's reply. The lines both
// texts share at the start and the end are set aside first, so an edit of a big file costs a
// comparison of the changed middle only; that middle is compared with Myers' algorithm, and when
// it differs too much to compare cheaply (more than MAX_EDIT_DISTANCE changed lines) it is shown
// as one block removed and one added, which is still a correct diff.
const CONTEXT = 3;
const MAX_EDIT_DISTANCE = 2000;

function splitLines(text) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// Myers' O(ND) shortest edit script between a and b: a list of ['=', '-', '+', line] operations,
// or null when more than maxD lines differ.
function myers(a, b, maxD) {
  const n = a.length;
  const m = b.length;
  const offset = maxD + 1;
  const v = new Int32Array(2 * maxD + 3);
  const trace = [];
  for (let d = 0; d <= maxD; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = (k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, offset, d);
    }
  }
  return null;
}

function backtrack(a, b, trace, offset, dEnd) {
  const ops = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const prevK = (k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])) ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(['=', a[--x]]);
      y--;
    }
    if (x === prevX) ops.push(['+', b[--y]]);
    else ops.push(['-', a[--x]]);
  }
  while (x > 0 && y > 0) {
    ops.push(['=', a[--x]]);
    y--;
  }
  return ops.reverse();
}

function lineOps(oldText, newText) {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle = myers(midA, midB, Math.min(MAX_EDIT_DISTANCE, midA.length + midB.length))
    ?? [...midA.map((l) => ['-', l]), ...midB.map((l) => ['+', l])];
  return [...a.slice(0, start).map((l) => ['=', l]), ...middle, ...a.slice(endA).map((l) => ['=', l])];
}

// Hunks: runs of changes with up to CONTEXT unchanged lines around them, merged when close.
function hunks(ops) {
  const out = [];
  let oldLine = 1;
  let newLine = 1;
  let current = null;
  let trailing = 0;
  const nextChange = new Array(ops.length + 1).fill(-1);
  for (let i = ops.length - 1; i >= 0; i--) nextChange[i] = ops[i][0] !== '=' ? i : nextChange[i + 1];
  for (let i = 0; i < ops.length; i++) {
    const [kind, line] = ops[i];
    if (kind !== '=') {
      if (current === null) {
        const before = [];
        for (let j = i - 1; j >= 0 && before.length < CONTEXT && ops[j][0] === '='; j--) before.unshift(ops[j][1]);
        current = { oldStart: oldLine - before.length, newStart: newLine - before.length, lines: before.map((l) => ` ${l}`) };
      }
      current.lines.push(`${kind}${line}`);
      trailing = 0;
    } else if (current !== null) {
      const next = nextChange[i];
      if (trailing < CONTEXT || (next !== -1 && next - i <= CONTEXT)) {
        current.lines.push(` ${line}`);
        trailing++;
      } else {
        out.push(current);
        current = null;
      }
    }
    if (kind !== '+') oldLine++;
    if (kind !== '-') newLine++;
  }
  if (current !== null) out.push(current);
  return out;
}

function range(start, count) {
  return count === 1 ? `${start}` : `${count === 0 ? start - 1 : start},${count}`;
}

// `name` is the virtual path, shown as a/ and b/ names the way git does.
function unifiedDiff(oldText, newText, name) {
  const out = [`diff --git a${name} b${name}`, `--- a${name}`, `+++ b${name}`];
  for (const h of hunks(lineOps(oldText, newText))) {
    const oldCount = h.lines.filter((l) => l[0] !== '+').length;
    const newCount = h.lines.filter((l) => l[0] !== '-').length;
    out.push(`@@ -${range(h.oldStart, oldCount)} +${range(h.newStart, newCount)} @@`, ...h.lines);
  }
  return `${out.join('\n')}\n`;
}

module.exports = { unifiedDiff };
