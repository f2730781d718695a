#include "listeners_wrap.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/fd_passing.h"
#include "common/original_destination.h"
#include "common/unique_fd.h"
#include "operation.h"

namespace msb_binding {
namespace {

// A launcher that neither sends nor exits (stopped, say) holds a threadpool thread this long.
constexpr int kReceiveTimeoutMs = 10000;

using Received = std::vector<msb::PassedFd>;

std::string failure_text(const msb::Error& error) {
  if (error.sys_errno == EPROTO) return "a malformed message";
  if (error.sys_errno == ETIMEDOUT) return "no end within 10 s";
  std::string text = std::strerror(error.sys_errno);
  if (error.op != msb::SysOp::none) text = std::string(msb::sysop_name(error.op)) + ": " + text;
  return text;
}

class ListenersTask final : public PromiseTask<Received> {
 public:
  static Napi::Promise Start(Napi::Env env, Work work) {
    return (new ListenersTask(env, std::move(work)))->QueueForPromise();
  }

 protected:
  void settle_error(Napi::Env env, const msb::Error& error) override {
    deferred_.Reject(Napi::Error::New(env, "cannot receive the command's network listeners: " +
                                               failure_text(error))
                         .Value());
  }

 private:
  ListenersTask(Napi::Env env, Work work) : PromiseTask<Received>(env, std::move(work), convert) {}

  // The descriptors become the caller's: released as they are handed out.
  static Napi::Value convert(Napi::Env env, Received& received) {
    Napi::Array out = Napi::Array::New(env, received.size());
    for (uint32_t i = 0; i < received.size(); ++i) {
      Napi::Object entry = Napi::Object::New(env);
      entry.Set("label", Napi::String::New(env, received[i].label));
      entry.Set("fd", Napi::Number::New(env, received[i].fd.release()));
      out.Set(i, entry);
    }
    return out;
  }
};

int descriptor_argument(const Napi::CallbackInfo& info) {
  if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "expected a descriptor");
  const double given = info[0].As<Napi::Number>().DoubleValue();
  if (!(given >= 0 && given <= 0x7fffffff) || given != static_cast<int>(given))
    throw Napi::TypeError::New(info.Env(), "expected a descriptor");
  return static_cast<int>(given);
}

}  // namespace

Napi::Value SocketPair(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    throw Napi::Error::New(env, std::string("socketpair: ") + std::strerror(errno));
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0U, Napi::Number::New(env, fds[0]));
  out.Set(1U, Napi::Number::New(env, fds[1]));
  return out;
}

Napi::Value ReceiveListeners(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  // Closed when the task goes, whether or not it ever ran.
  auto channel = std::make_shared<msb::UniqueFd>(descriptor_argument(info));
  return ListenersTask::Start(env, [channel]() -> msb::Result<Received> {
    auto received = msb::receive_all_fds(channel->get(), kReceiveTimeoutMs);
    channel->reset();
    return received;
  });
}

Napi::Value OriginalDestination(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto found = msb::original_destination(descriptor_argument(info));
  if (!found)
    throw Napi::Error::New(
        env, "cannot read the connection's destination: " + failure_text(found.error()));
  if (!found.value()) return env.Null();
  in_addr address{htonl(found.value()->address)};
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &address, text, sizeof text);
  Napi::Object out = Napi::Object::New(env);
  out.Set("address", Napi::String::New(env, text));
  out.Set("port", Napi::Number::New(env, found.value()->port));
  return out;
}

}  // namespace msb_binding
