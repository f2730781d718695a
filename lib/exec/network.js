'use strict';

// The network of one sandbox.exec() call with an allowlist. The command keeps its network
// namespace with only loopback; the launcher makes, inside it, the listeners the command may reach
// (an HTTP proxy, a SOCKS5 proxy, a DNS stub and the ports allowed names are reached on) and hands
// them to this process, where the judge (lib/network/judge.js) serves them: nothing the command
// sends leaves the machine except through a connection the judge dialled itself.
const { dgram, fs, net } = require('../common/builtins');
const { capturePorts, describeNetwork } = require('../network/policy');
const { NetworkJudge, refusalSentence } = require('../network/judge');

// Ports the proxies listen on, inside the command's namespace: the usual ones, unless an allowed
// name is reached on one of them.
const HTTP_PROXY_PORTS = [3128, 8118, 8888, 13128];
const SOCKS_PORTS = [1080, 1081, 9050, 11080];
const NO_PROXY = 'localhost,127.0.0.1,::1';

const firstFree = (choices, taken) => choices.find((port) => !taken.includes(port));

// What the launcher makes for a policy in "filtered" mode: the `listen` key of its policy.
function listenerPlan(policy) {
  const capture = capturePorts(policy);
  return { http: firstFree(HTTP_PROXY_PORTS, capture), socks: firstFree(SOCKS_PORTS, capture), dns: true, capture };
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
// Node's fetch "ENOTFOUND"; this says which destination the sandbox refused, and what it allows.
function refusedNote(report, policy) {
  if (report === null || report.denied.length === 0) return null;
  const shown = report.denied.slice(0, 5).map(refusalSentence);
  const more = report.denied.length > 5 ? `; and ${report.denied.length - 5} more` : '';
  const allowed = describeNetwork(policy).allow;
  const allows = allowed.length === 0 ? 'no destination' : allowed.join(', ');
  return `Note: the sandbox's network policy refused: ${shown.join('; ')}${more}. ` +
    `This command may reach only ${allows}; ask the user to allow a destination it needs, or use an allowed one.`;
}

module.exports = { networkLaunch, startJudge, enforcedMode, refusedNote, listenerPlan, proxyEnvironment };
