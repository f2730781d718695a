// The launcher's dealings with processes and descriptors that hold no policy of their own: what
// it closes of what the caller leaked, how it finds and execs the command, how it waits.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/unique_fd.h"

namespace msb {

// The listeners' channel (network_listeners.h), when the caller passed one: made close-on-exec at
// once, so that it never reaches the PID namespace's init or the command even if something below
// fails to close it. Invalid when there is none; anything else at that number is closed with the
// other leaked descriptors.
UniqueFd keep_listeners_channel();

// Closes every descriptor above `status_fd` but the listeners' channel: descriptors the caller
// leaked would carry access Landlock cannot revoke.
void close_inherited_fds(int status_fd, const UniqueFd& channel);

// execvpe's search, in the command's PATH (from `env`) rather than ours, of which there is none.
// Returns only on failure, with the errno that explains it best (EACCES over ENOENT).
int exec_searching_path(const std::vector<std::string>& argv, const std::vector<std::string>& env);

// waitpid, retried on EINTR.
pid_t wait_for(pid_t pid, int* status);

}  // namespace msb
