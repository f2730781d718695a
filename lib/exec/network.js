'use strict';

// The network of one sandbox.exec() call with an allowlist. The command keeps its network
// namespace with only loopback; the launcher makes, inside it, the listeners the command may reach
// (an HTTP proxy, a SOCKS5 proxy, a DNS stub and the ports allowed names are reached on) and hands
// them to this process, where the judge (lib/network/judge.js) serves them: nothing the command
// sends leaves the machine except through a connection the judge dialled itself.
const { dgram, fs, net } = require('../common/builtins');
const { capturePorts, describeNetwork } = require('../network/policy');
const { NetworkJudge } = require('../network/judge');
const { REFUSALS, refusalSentence } = require('../network/report');
const { STUB_NETWORK } = require('../network/dns');

// Ports the proxies listen on, inside the command's namespace: the usual ones, unless an allowed
// name is reached on one of them.
const HTTP_PROXY_PORTS = [3128, 8118, 8888, 13128];
const SOCKS_PORTS = [1080, 1081, 9050, 11080];
const REDIRECT_PORTS = [15001, 15002, 15003, 15004];
const NO_PROXY = 'localhost,127.0.0.1,::1';

const firstFree = (choices, taken) => choices.find((port) => !taken.includes(port));

// What the launcher makes for a policy in "filtered" mode: the `listen` key of its policy. The
// redirect listener takes every TCP port of the DNS stub's addresses where the kernel lets the
// launcher install the rule; the capture listeners serve the allowed ports where it does not.
function listenerPlan(policy) {
  const capture = capturePorts(policy);
  const http = firstFree(HTTP_PROXY_PORTS, capture);
  const socks = firstFree(SOCKS_PORTS, capture);
  const redirect = { port: firstFree(REDIRECT_PORTS, [...capture, http, socks]), ...STUB_NETWORK };
  return { http, socks, dns: true, capture, redirect };
}

// The command's proxy variables, both cases, since clients read one or the other; Node 22.21+/24
// follow them with NODE_USE_ENV_PROXY. Clients that read none still reach allowed names through
// the DNS stub.
function proxyEnvironment(plan) {
  const http = `http://127.0.0.1:${plan.http}`;
  const socks = `socks5h://127.0.0.1:${plan.socks}`;
  const env = { NODE_USE_ENV_PROXY: '1' };
  for (const [name, value] of [['http_proxy', http], ['https_proxy', http], ['all_proxy', socks], ['no_proxy', NO_PROXY]]) {
    env[name] = value;
    env[name.toUpperCase()] = value;
  }
  return env;
}

// The launcher's options for a command's network: `network` (the host's) and, for an allowlist,
// what to listen on and the variables that point clients there.
function networkLaunch(policy) {
  if (policy.mode !== 'filtered') return { network: policy.mode === 'host', listen: null, env: {} };
  const listen = listenerPlan(policy);
  return { network: false, listen, env: proxyEnvironment(listen) };
}

function serverOn(fd) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ fd }, () => resolve(server));
  });
}

function datagramsOn(fd) {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    socket.once('error', reject);
    socket.bind({ fd }, () => resolve(socket));
  });
}

// The judge, serving the descriptors the launcher hands over (`received` resolves to
// [{ label, fd }]; none where it made none: null then). Descriptors not yet served when one fails
// are closed here; those served, with the judge.
async function startJudge(policy, received, onRequest) {
  const listeners = await received;
  if (listeners.length === 0) return null;
  const judge = new NetworkJudge({ policy, onRequest: onRequest ?? undefined });
  let next = 0;
  try {
    for (; next < listeners.length; next += 1) {
      const { label, fd } = listeners[next];
      judge.attach(label, label === 'dns' ? await datagramsOn(fd) : await serverOn(fd));
    }
  } catch (error) {
    // The one that failed was taken by its handle, which closed it.
    for (const { fd } of listeners.slice(next + 1)) fs.closeSync(fd);
    await judge.close();
    throw error;
  }
  return judge;
}

// The mode `enforcement.network` reports: an allowlist holds only where the launcher made the
// listeners (in a network namespace of the command's own); without them the command had none.
function enforcedMode(policy, layers, listenersReceived) {
  if (policy.mode === 'host') return 'host';
  if (policy.mode === 'filtered' && listenersReceived && layers.includes('network-namespace')) return 'filtered';
  return 'off';
}

// What the model reads after a refusal: curl says only "CONNECT tunnel failed, response 403" and
// Node's fetch "ENOTFOUND"; this says which destinations the sandbox refused, how often in all,
// and what it allows. Refusals of the policy and failures of allowed destinations (no DNS answer,
// no connection) are told apart: asking for permission cannot help the second.
const SHOWN = 5;
const isFailure = (reason) => REFUSALS[reason]?.failed !== undefined;
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

// One side of the report's refusals (failures, or the policy's), counted with what overflowed:
// its rows, connections before DNS lookups (so a flood of lookups cannot hide a refused
// connection), and how many refusals and destinations there were in all.
function tally(report, failures) {
  const rows = report.denied.filter((d) => isFailure(d.reason) === failures);
  const ordered = [...rows.filter((d) => d.port !== null), ...rows.filter((d) => d.port === null)];
  let refusals = rows.reduce((sum, d) => sum + d.count, 0);
  let destinations = rows.length;
  let unlisted = 0;
  for (const [reason, count] of Object.entries(report.overflow?.reasons ?? {})) {
    if (isFailure(reason) !== failures) continue;
    refusals += count.refusals;
    destinations += count.destinations;
    unlisted += count.refusals;
  }
  return { ordered, refusals, destinations, unlisted, exact: report.overflow?.exact !== false };
}

// What a note lists of one side: its first rows, and, unless each is shown and happened once,
// how many refusals (of which kinds) there were, to how many destinations, and which are shown.
function listed(side) {
  const shown = side.ordered.slice(0, SHOWN).map((d) => {
    const asides = [REFUSALS[d.reason]?.failed, d.count > 1 ? `${d.count} times` : undefined].filter(Boolean);
    return asides.length === 0 ? refusalSentence(d) : `${refusalSentence(d)} (${asides.join('; ')})`;
  });
  const list = shown.join('; ');
  if (side.refusals === shown.length) return { list, counted: null };
  const kinds = new Set(side.ordered.map((d) => (d.port === null ? 'lookup' : 'connection')));
  if (side.unlisted > 0) kinds.add('lookup').add('connection');
  const one = side.refusals === 1 ? '' : 's';
  const words = kinds.size === 2 ? 'connections and DNS lookups' : kinds.has('lookup') ? `DNS lookup${one}` : `connection${one}`;
  return {
    list,
    counted: `${side.refusals} ${words}`,
    destinations: `${side.exact ? '' : 'at least '}${plural(side.destinations, 'destination')}`,
    which: shown.length === side.destinations ? '' : `; the first ${shown.length}${kinds.size === 2 ? ' (connections first)' : ''}`,
  };
}

function refusedNote(report, policy) {
  if (report === null || (report.denied.length === 0 && !report.overflow?.refusals)) return null;
  const notes = [];
  const refused = tally(report, false);
  if (refused.refusals > 0) {
    const { list, counted, destinations, which } = listed(refused);
    const allowed = describeNetwork(policy).allow;
    const allows = allowed.length === 0 ? 'no destination' : allowed.join(', ');
    notes.push(`Note: the sandbox's network policy refused${counted === null ? '' : ` ${counted} to ${destinations}${which}`}: ${list}. ` +
      `This command may reach only ${allows}; ask the user to allow a destination it needs, or use an allowed one.`);
  }
  const failed = tally(report, true);
  if (failed.refusals > 0) {
    const { list, counted, destinations, which } = listed(failed);
    const single = failed.destinations === 1;
    const what = counted === null
      ? `${single ? 'this destination, but it' : 'these destinations, but they'} could not be used`
      : `${single ? 'this destination' : destinations}, but ${counted} to ${single ? 'it' : 'them'} failed${which}`;
    notes.push(`Note: the sandbox's network policy allows ${what}: ${list}. Asking the user to allow ${single ? 'it' : 'them'} ` +
      'will not help: the name may be wrong, or the service down or unreachable from this machine.');
  }
  return notes.join('\n');
}

module.exports = { networkLaunch, startJudge, enforcedMode, refusedNote, listenerPlan, proxyEnvironment };
