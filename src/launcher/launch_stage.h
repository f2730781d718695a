// Where msb-launch stopped before the command ran: the second word of its
// "error <stage> [<syscall>] <errno>" status line. lib/exec/exec.js turns these names into typed
// errors (a stage it does not know gets a generic ExecError); test/launch-stages.test.js checks
// every name it handles against this list.
#pragma once

#include <cstdint>
#include <string_view>

namespace msb {

enum class LaunchStage : std::uint8_t {
  usage,                       // arguments were given (the policy travels on a descriptor)
  status_fd,                   // the status channel could not be made close-on-exec
  policy_read,                 // reading the policy failed
  policy_size,                 // the policy is larger than the launcher reads
  policy,                      // the policy is malformed
  no_new_privs,                // PR_SET_NO_NEW_PRIVS failed
  path,                        // a policy path cannot be opened
  path_changed,                // a policy path names another inode than the sandbox pinned
  namespaces,                  // entering the namespaces failed after the kernel allowed them
  namespaces_required,         // the namespace layer is indispensable and unavailable (or off)
  namespaces_unavailable,      // "require" and the kernel refuses them
  root,                        // the command's root could not be built or entered
  private_proc_unavailable,    // no procfs of the command's own could be mounted
  cwd,                         // the working directory cannot be opened or entered
  cwd_changed,                 // the working directory names another inode than the sandbox's
  landlock,                    // the kernel refused a Landlock rule or the ruleset
  landlock_unavailable,        // the kernel has no Landlock
  seccomp,                     // the filter could not be installed
  capabilities,                // the capabilities could not be dropped
  limits,                      // a resource limit could not be set
  pipe,                        // the PID namespace's status pipe could not be made
  fork,                        // fork failed
  network_filter_unavailable,  // listeners were asked for and the command has no network namespace
  network_listeners,           // the listeners could not be made or handed over on descriptor 5
  copy_on_write_unavailable,   // a copy-on-write layer was asked for and cannot be made here
};

constexpr std::string_view stage_name(LaunchStage stage) {
  switch (stage) {
    case LaunchStage::usage: return "usage";
    case LaunchStage::status_fd: return "status-fd";
    case LaunchStage::policy_read: return "policy-read";
    case LaunchStage::policy_size: return "policy-size";
    case LaunchStage::policy: return "policy";
    case LaunchStage::no_new_privs: return "no-new-privs";
    case LaunchStage::path: return "path";
    case LaunchStage::path_changed: return "path-changed";
    case LaunchStage::namespaces: return "namespaces";
    case LaunchStage::namespaces_required: return "namespaces-required";
    case LaunchStage::namespaces_unavailable: return "namespaces-unavailable";
    case LaunchStage::root: return "root";
    case LaunchStage::private_proc_unavailable: return "private-proc-unavailable";
    case LaunchStage::cwd: return "cwd";
    case LaunchStage::cwd_changed: return "cwd-changed";
    case LaunchStage::landlock: return "landlock";
    case LaunchStage::landlock_unavailable: return "landlock-unavailable";
    case LaunchStage::seccomp: return "seccomp";
    case LaunchStage::capabilities: return "capabilities";
    case LaunchStage::limits: return "limits";
    case LaunchStage::pipe: return "pipe";
    case LaunchStage::fork: return "fork";
    case LaunchStage::network_filter_unavailable: return "network-filter-unavailable";
    case LaunchStage::network_listeners: return "network-listeners";
    case LaunchStage::copy_on_write_unavailable: return "copy-on-write-unavailable";
  }
  return "unknown";
}

}  // namespace msb
