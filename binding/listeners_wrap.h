// The exec launcher's listening sockets (src/launcher/network_listeners.h), received on the
// threadpool (src/common/fd_passing.h). Only converts and schedules.
#pragma once

#include <napi.h>

namespace msb_binding {

// socketPair() -> [parentFd, childFd]: AF_UNIX SOCK_SEQPACKET, both close-on-exec.
Napi::Value SocketPair(const Napi::CallbackInfo& info);

// receiveListeners(parentFd) -> Promise<Array<{ label, fd }>>: every message up to "end" or the
// launcher's close, within 10 s in all; closes parentFd. The descriptors (close-on-exec) are the
// caller's to close. A malformed message, a timeout or a failed recvmsg rejects with an Error,
// every descriptor received so far closed.
Napi::Value ReceiveListeners(const Napi::CallbackInfo& info);

// originalDestination(fd) -> { address, port } | null: where a connection accepted on the
// "redirect" listener was made to (src/common/original_destination.h); null when it was made to
// the listener's own port. Throws an Error when fd is not an IPv4 TCP socket.
Napi::Value OriginalDestination(const Napi::CallbackInfo& info);

}  // namespace msb_binding
