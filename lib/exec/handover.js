'use strict';

// What the launcher hands back over its descriptor 5 (src/common/fd_passing.h), before the command
// starts: the network listeners a policy with `listen` asks for (src/launcher/network_listeners.h),
// and, with `scratchLayers`, the tmpfs holding the run's copy-on-write layers
// (src/launcher/run_scratch.h), labelled 'layers'. The channel is one end of an AF_UNIX
// SOCK_SEQPACKET pair; the launcher gets the other as its descriptor 5.
const { fs } = require('../common/builtins');
const { addon } = require('../common/native');

const SCRATCH_LABEL = 'layers';

/** The channel's two ends, or null where the policy asks for nothing to be handed back. */
function handoverChannel(policy) {
  if (!policy.listen && !policy.scratchLayers) return null;
  const [parentFd, childFd] = addon().socketPair();
  return { parentFd, childFd };
}

const closeQuietly = (fd) => {
  try {
    fs.closeSync(fd);
  } catch {
    // closed already
  }
};

/**
 * Once the launcher holds its end: `listeners`, a promise of [{ label, fd }] (null without
 * `listen`), as the network side takes them; `scratch`, a promise of the tmpfs's descriptor or
 * null (none sent, or the channel failed: never rejected). Descriptors become the caller's.
 */
function receiveHandover(channel, policy) {
  if (channel === null) return { listeners: null, scratch: Promise.resolve(null) };
  fs.closeSync(channel.childFd);
  const all = addon().receiveListeners(channel.parentFd);
  const listeners = all.then((received) => received.filter((r) => r.label !== SCRATCH_LABEL));
  const scratch = all.then((received) => {
    const found = received.find((r) => r.label === SCRATCH_LABEL);
    return found === undefined ? null : found.fd;
  }, () => null);
  if (!policy.listen) {
    // Nobody serves listeners here: any sent anyway are closed.
    listeners.then((list) => list.forEach(({ fd }) => closeQuietly(fd)), () => {});
    return { listeners: null, scratch };
  }
  return { listeners, scratch };
}

module.exports = { handoverChannel, receiveHandover, closeQuietly };
