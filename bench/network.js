#!/usr/bin/env node
'use strict';

// What network by name costs (issue 21), measured inside the network world of the tests
// (test/helpers/net-world.js: servers in a network namespace of their own behind a veth pair, so
// no packet leaves the machine), in one run:
//
//   node bench/network.js [--runs=N] [--commands=N] [--requests=N] [--json]
//
// 1. Launch: sandbox.exec(['/bin/true']) with an allowlist ({ allow: ['registry.test'] }: the
//    launcher makes the judge's sockets, the caller serves them) against the network off. Goal:
//    within +20 %. Both sampled in turns inside the world's runner, --runs each (default 100).
// 2. Per request: a Node script in the command makes --requests (default 50) sequential HTTP
//    GETs to registry.test, each on a new connection, and times each one itself; --commands such
//    commands (default 10) per way, in turns: through the judge's HTTP proxy, by name through the
//    DNS stub and a capture listener, and with `network: true`, straight to the server (the
//    baseline). Goal: within +10 ms per request.
// Needs what the world needs (unshare, ip, mount; namespaces allowed); prints why when missing.

const os = require('os');
const { startWorld, WORLD_MISSING } = require('../test/helpers/net-world');

function parseArgs(argv) {
  const opts = { runs: 100, commands: 10, requests: 50, json: false };
  for (const arg of argv) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (arg === '--json') opts.json = true;
    else if (['runs', 'commands', 'requests'].includes(key) && Number(value) >= 1) opts[key] = Math.floor(Number(value));
    else process.stderr.write(`bench/network: ignoring unknown argument ${arg}\n`);
  }
  return opts;
}

const ALLOW = { allow: ['registry.test'] };

// Run inside the command: N sequential GETs, each on a new connection, via the proxy named in
// HTTP_PROXY ('proxy') or to the name itself ('name'); prints the times (ms) as JSON.
const REQUESTS_SCRIPT = `
  const http = require('http');
  const { performance } = require('perf_hooks');
  const n = Number(process.argv[1]);
  const proxy = process.argv[2] === 'proxy' ? new URL(process.env.HTTP_PROXY) : null;
  const get = (i) => new Promise((resolve, reject) => {
    const start = performance.now();
    const req = proxy
      ? http.request({ host: proxy.hostname, port: Number(proxy.port), path: 'http://registry.test/bench' + i, headers: { host: 'registry.test' }, agent: false })
      : http.request({ host: 'registry.test', port: 80, path: '/bench' + i, agent: false });
    req.on('response', (res) => { res.resume(); res.on('end', () => resolve(performance.now() - start)); });
    req.on('error', reject);
    req.end();
  });
  (async () => {
    const times = [];
    for (let i = 0; i < n; i++) times.push(await get(i));
    console.log(JSON.stringify(times));
  })().catch((e) => { console.error(String(e)); process.exit(1); });`;

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { n: sorted.length, median: at(0.5), p90: at(0.9), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

async function filteredWorks(world) {
  try {
    const result = await world.exec(['/bin/true'], { network: ALLOW });
    return result.enforcement && result.enforcement.network === 'filtered' ? null : 'the result does not report filtered enforcement';
  } catch (err) {
    return err.message;
  }
}

async function measureLaunch(world, opts, filtered) {
  const variants = [{ argv: ['/bin/true'], options: { network: false } }];
  if (filtered) variants.push({ argv: ['/bin/true'], options: { network: ALLOW } });
  const samples = await world.sample(variants, { runs: opts.runs, slice: 10, warmup: 10 });
  const [off, allow] = samples.map((s) => summary(s.times));
  return { off, allow: allow ?? null, ratio: allow ? allow.median / off.median : null, overheadMs: allow ? allow.median - off.median : null };
}

async function measureRequests(world, opts, filtered) {
  const argv = (how) => ['node', '-e', REQUESTS_SCRIPT, String(opts.requests), how];
  const variants = [{ name: 'direct', argv: argv('name'), options: { network: true } }];
  if (filtered) {
    variants.push({ name: 'proxy', argv: argv('proxy'), options: { network: ALLOW } });
    variants.push({ name: 'capture', argv: argv('name'), options: { network: ALLOW } });
  }
  const samples = await world.sample(variants.map(({ argv: a, options }) => ({ argv: a, options })),
    { runs: opts.commands, slice: 1, warmup: 1 });
  // The first request of each command also pays for the command's own start (Node's http module
  // loading): it is left out of every side alike.
  const perRequest = samples.map((s) => summary(s.stdout.flatMap((out) => JSON.parse(out).slice(1))));
  const out = {};
  for (const [k, { name }] of variants.entries()) out[name] = perRequest[k];
  for (const name of ['proxy', 'capture']) {
    if (out[name]) out[`${name}OverheadMs`] = out[name].median - out.direct.median;
  }
  return out;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (WORLD_MISSING) {
    process.stdout.write(`network bench: skipped: ${WORLD_MISSING}\n`);
    return;
  }
  const world = await startWorld({ hosts: { 'registry.test': 'server' } });
  try {
    const filteredMissing = await filteredWorks(world);
    const filtered = filteredMissing === null;
    const launch = await measureLaunch(world, opts, filtered);
    const requests = await measureRequests(world, opts, filtered);
    const result = { runs: opts.runs, commands: opts.commands, requests: opts.requests, filteredMissing, launch, perRequest: requests };
    if (opts.json) {
      process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      return;
    }
    const ms = (v) => `${v.toFixed(2)} ms`;
    const row = (name, s) => `  ${name.padEnd(40)} median ${ms(s.median).padStart(9)}  p90 ${ms(s.p90).padStart(9)}\n`;
    const goal = (ok) => (ok ? 'goal met' : 'goal MISSED');
    const w = (text) => process.stdout.write(text);
    w(`network by name, inside the test world (${os.cpus().length} CPUs)\n`);
    if (!filtered) w(`  filtered mode unavailable, only the baselines are measured: ${filteredMissing}\n`);
    w(`launch (/bin/true, ${opts.runs} sequential runs each, in turns)\n`);
    w(row('network off', launch.off));
    if (launch.allow) {
      w(row("allow ['registry.test']", launch.allow));
      w(`  ratio (median, allowlist / off): ${launch.ratio.toFixed(2)}x, +${ms(launch.overheadMs)} per command (${goal(launch.ratio <= 1.2)}: within +20 %)\n`);
    }
    w(`per HTTP request (${opts.commands} commands x ${opts.requests} sequential GETs, a new connection each, first of each left out)\n`);
    w(row('network: true, straight to the server', requests.direct));
    for (const [name, label] of [['proxy', 'filtered, through the HTTP proxy'], ['capture', 'filtered, by name (DNS stub + capture)']]) {
      if (!requests[name]) continue;
      const extra = requests[`${name}OverheadMs`];
      w(row(label, requests[name]));
      w(`  +${ms(extra)} per request over straight (${(requests[name].median / requests.direct.median).toFixed(2)}x; ${goal(extra <= 10)}: within +10 ms)\n`);
    }
  } finally {
    await world.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`bench/network: ${err.stack || err}\n`);
  process.exitCode = 1;
});
