'use strict';

// Finds msb-launch, the program that confines a command before exec'ing it. It is built (and
// prebuilt) next to the addon and found the same way; MOUNT_SANDBOX_LAUNCHER overrides.
const { findLauncher, SOLUTIONS } = require('../common/native');
const { UnsupportedPlatformError } = require('../sandbox-errors');

function launcherPath() {
  const found = findLauncher();
  if (found === null) {
    throw new UnsupportedPlatformError('the exec launcher msb-launch was not found beside the addon',
      { solutions: [SOLUTIONS.build] });
  }
  return found;
}

module.exports = { launcherPath };
