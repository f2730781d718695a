'use strict';

// The network a sandbox's commands may have: a ceiling that no call, restriction or worker can
// widen, and what a call gets when it names none. A sandbox made without a network setting keeps
// the contract it always had: no network unless a call asks for it, and then whatever it asks for.
// A declared one (a program config's `network:`, createMountSandbox's, a restriction's, a
// worker's) is both the ceiling and what calls get by default; each declaration narrows the one
// it derives from (lib/network/policy.js narrowNetwork), and the deny lists add up.
const { parseNetwork, narrowNetwork, withGrant, judgedPolicy } = require('./policy');

const NETWORK = Symbol('network');
const UNDECLARED = Object.freeze({ ceiling: parseNetwork(true), fallback: parseNetwork(false), declared: false });

function networkOf(sandbox) {
  return sandbox[NETWORK] || UNDECLARED;
}

// `view` gets the network `value` declares, which must lie within `from`'s ceiling.
function declareNetwork(view, from, value, where = 'network') {
  if (view === null) return view;
  const ceiling = narrowNetwork(networkOf(from).ceiling, parseNetwork(value, where), where);
  view[NETWORK] = Object.freeze({ ceiling, fallback: ceiling, declared: true });
  return view;
}

// A view derived from `from` (restrict, selectZones, a worker) keeps its network.
function carryNetwork(from, view) {
  if (view !== null && from[NETWORK] !== undefined) view[NETWORK] = from[NETWORK];
  return view;
}

// The network one command gets: the call's own setting narrowed to the sandbox's ceiling (or the
// sandbox's default), plus what an approval granted for this call. The deny list always holds.
// A callback that approves destinations as they come (onRequest) needs the judge even where the
// command would have had no network: every destination is then asked about.
function commandNetwork(sandbox, opts) {
  const { ceiling, fallback } = networkOf(sandbox);
  let policy = opts.network === undefined ? fallback : narrowNetwork(ceiling, opts.network, 'network');
  if (opts.grant !== null) policy = withGrant(policy, opts.grant, 'grant.network');
  if (opts.onRequest !== null) policy = judgedPolicy(policy);
  return policy;
}

module.exports = { networkOf, declareNetwork, carryNetwork, commandNetwork };
