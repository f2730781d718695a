// A command's change set: what it wrote in the copy-on-write layers of its writable mounts
// (launcher/change_layer.h), read after it ended and landed on the host by the rules the file
// tools obey (Sandbox::land_*), or judged by them without landing (a review).
#pragma once

#include <fcntl.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "fs/sandbox.h"

namespace msb::changes {

// One layer: the directory overlayfs kept the command's changes in (its upper directory), and the
// virtual path of the mount it covered. `upper` is opened beneath `base`: a host path with
// AT_FDCWD, or a name beneath the descriptor of the run's tmpfs (launcher/run_scratch.h), which
// outlives the command's mount namespace while it is open.
struct Layer {
  std::string upper;
  std::string target;
  int base = AT_FDCWD;
};

enum class ChangeKind : std::uint8_t { file, symlink, directory, removal };

enum class Outcome : std::uint8_t {
  applied,    // landed (or, judged only, would land)
  unchanged,  // the host already holds it
  refused,    // a rule refused it: `error` says which
  conflict,   // the host's entry changed while the command ran: never overwritten
  pending,    // held: not among the paths asked for, or in an `ask` place with holding asked
};

struct ChangeVerdict {
  std::string path;  // virtual
  ChangeKind kind = ChangeKind::file;
  std::uint64_t size = 0;  // a file's new size
  Outcome outcome = Outcome::applied;
  Error error;                                 // refused and conflict: why
  Approval approval = Approval::pre_approved;  // what the place asks of a change made there
  // The version of what the path held on the host when the change was judged (version_token of
  // stat()), empty where it held nothing: what a change that lands replaces.
  std::string replaces;
};

struct LandOptions {
  LandRules rules;
  bool hold_ask = false;  // changes whose place asks for approval wait (pending)
  // Only these virtual paths land (a removed directory's entries go with it); the rest wait.
  std::optional<std::set<std::string>> only;
  // Beyond: truncated, the rest left in the layer for the next land_layers (apply()). Each verdict
  // becomes an object in the caller's process: a command must not make that list unbounded.
  std::size_t max_changes = 250'000;
};

struct LandReport {
  std::vector<ChangeVerdict> changes;  // in the order they were judged: parents first
  bool truncated = false;
};

// Reads each layer and lands (or judges) every change in it. Fails only where a layer cannot be
// read at all (io_error); each change's own refusal is in its verdict.
Result<LandReport> land_layers(const Sandbox& sandbox, const std::vector<Layer>& layers,
                               const LandOptions& options);

}  // namespace msb::changes
