'use strict';

// mount-sandbox apparmor: print the AppArmor profile exec's launcher needs where the kernel
// restricts user namespaces (Ubuntu 23.10 and later), naming the launcher by its real path; it
// installs nothing, since that takes root and is the administrator's to decide.
const fs = require('fs');
const { launcherPath, apparmor } = require('./support.js');
const { UsageError } = require('./args.js');

const synopsis = 'mount-sandbox apparmor';
const takes = [];
const summary = 'Print the AppArmor profile that lets exec\'s launcher create user namespaces (Ubuntu 24.04).';
const help = `Print on stdout the AppArmor profile that allows msb-launch, the program exec runs first,
to create user namespaces where ${apparmor.SYSCTL} is 1 (Ubuntu 23.10 and
later), naming the launcher this package uses by its real path. Print on stderr whether this
kernel restricts them, and the two commands that install and load the profile:
  ${apparmor.LOAD_COMMANDS.join('\n  ')}
Nothing is installed or loaded. Run it again after the package moves or is reinstalled elsewhere.

Exit status: 0 printed; 1 no launcher was found; 2 usage error.`;

// `extra`: the positional arguments after the command's name.
function checkArgs(extra) {
  if (extra.length > 0) throw new UsageError('apparmor takes no arguments');
}

// Whether this kernel needs the profile, as the first line of what `apparmor` says on stderr.
function restrictionLine() {
  const restricted = apparmor.kernelRestrictsUserNamespaces();
  if (restricted) return `this kernel restricts user namespaces (${apparmor.SYSCTL} = 1): exec needs this profile. Install and load it, as root:`;
  const setting = restricted === null ? `no ${apparmor.SYSCTL}` : `${apparmor.SYSCTL} = 0`;
  return `this kernel does not restrict user namespaces (${setting}): exec needs no profile here. Where it does, install and load it, as root:`;
}

function run() {
  const profile = apparmor.profileFor(fs.realpathSync(launcherPath()));
  const stderr = `mount-sandbox: ${restrictionLine()}\n${apparmor.LOAD_COMMANDS.map((line) => `  ${line}\n`).join('')}`;
  return { code: 0, lines: [], stdout: profile, stderr };
}

module.exports = { synopsis, takes, summary, help, checkArgs, run };
