// Core errors become JS errors through a factory that lib/ hands to each sandbox, so the error
// objects are instances of the facade's classes in whatever realm (Jest's included) created them.
#pragma once

#include <napi.h>

#include <string>

#include "common/error.h"

namespace msb_binding {

// What the factory gets besides the code and the path: size, limit, index, errno, filesystem,
// trusted and syscall, each only where the error has it.
Napi::Object error_details(Napi::Env env, const msb::Error& error);

// Calls factory.call(sandbox, code, virtualPath, details) and returns the error object it built.
Napi::Value make_error(const Napi::Object& sandbox, const Napi::FunctionReference& factory,
                       const msb::Error& error, const std::string& virtual_path);

[[noreturn]] void throw_error(const Napi::Object& sandbox, const Napi::FunctionReference& factory,
                              const msb::Error& error, const std::string& virtual_path);

}  // namespace msb_binding
