// Dropping every capability before the command runs. In the user namespace the launcher holds
// all capabilities (it needs them to remount), and a command run by root would keep them
// across exec: with them it could undo read-only remounts or reach the launcher's descriptors.
#pragma once

#include "common/error.h"

namespace msb {

// Empties the bounding, ambient, effective, permitted and inheritable sets and locks the
// securebits so that exec as uid 0 grants nothing back. Steps that need CAP_SETPCAP are skipped
// when the caller lacks it (then it has nothing to drop). Fails with io_error (sys_errno).
Status drop_capabilities();

}  // namespace msb
