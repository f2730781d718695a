// sandbox.grep(): the options converted, the search run as one threadpool task (which spreads
// the files over threads of its own, src/search/grep.h), the result converted back. Cancelling
// sets a flag in a SharedArrayBuffer the facade holds until the promise settles.
#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "operation.h"
#include "rules.h"
#include "sandbox_wrap.h"
#include "search/grep.h"

namespace msb_binding {
namespace {

Napi::Object line_object(Napi::Env env, const msb::GrepLine& line) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("line", Napi::Number::New(env, static_cast<double>(line.number)));
  out.Set("text", Napi::String::New(env, line.text));
  if (line.cut) out.Set("cut", Napi::Boolean::New(env, true));
  return out;
}

Napi::Array lines_array(Napi::Env env, const std::vector<msb::GrepLine>& lines) {
  Napi::Array out = Napi::Array::New(env, lines.size());
  for (uint32_t i = 0; i < lines.size(); ++i) out.Set(i, line_object(env, lines[i]));
  return out;
}

// Spans as [start, end] byte pairs; the facade turns them into string offsets.
Napi::Array spans_array(Napi::Env env, const std::vector<msb::MatchSpan>& spans) {
  Napi::Array out = Napi::Array::New(env, spans.size() * 2);
  for (uint32_t i = 0; i < spans.size(); ++i) {
    out.Set(2 * i, Napi::Number::New(env, static_cast<double>(spans[i].start)));
    out.Set(2 * i + 1, Napi::Number::New(env, static_cast<double>(spans[i].end)));
  }
  return out;
}

Napi::Array matches_array(Napi::Env env, const std::vector<msb::GrepMatch>& found) {
  Napi::Array matches = Napi::Array::New(env, found.size());
  for (uint32_t i = 0; i < found.size(); ++i) {
    const msb::GrepMatch& m = found[i];
    Napi::Object match = line_object(env, m.line);
    match.Set("path", Napi::String::New(env, m.path));
    match.Set("before", lines_array(env, m.before));
    match.Set("after", lines_array(env, m.after));
    if (!m.spans.empty()) match.Set("spans", spans_array(env, m.spans));  // only with columns
    matches.Set(i, match);
  }
  return matches;
}

Napi::Array files_array(Napi::Env env, const std::vector<msb::GrepFileCount>& files) {
  Napi::Array out = Napi::Array::New(env, files.size());
  for (uint32_t i = 0; i < files.size(); ++i) {
    Napi::Object file = Napi::Object::New(env);
    file.Set("path", Napi::String::New(env, files[i].path));
    file.Set("count", Napi::Number::New(env, static_cast<double>(files[i].count)));
    out.Set(i, file);
  }
  return out;
}

Napi::Value to_grep_result(Napi::Env env, msb::GrepResult& result) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("matches", matches_array(env, result.matches));
  out.Set("files", files_array(env, result.files));
  out.Set("undecidedLines", Napi::Number::New(env, static_cast<double>(result.undecided_lines)));
  out.Set("filesSearched", Napi::Number::New(env, static_cast<double>(result.files_searched)));
  out.Set("bytesSearched", Napi::Number::New(env, static_cast<double>(result.bytes_searched)));
  out.Set("skippedBinary", Napi::Number::New(env, static_cast<double>(result.skipped_binary)));
  out.Set("skippedRefused", Napi::Number::New(env, static_cast<double>(result.skipped_refused)));
  out.Set("skippedLongLines",
          Napi::Number::New(env, static_cast<double>(result.skipped_long_lines)));
  const char* stopped = msb::grep_stop_name(result.stopped);
  out.Set("truncated", stopped[0] == '\0' ? env.Null() : Napi::String::New(env, stopped));
  return out;
}

// The facade has validated every option; this only converts them.
msb::GrepOptions grep_options_from(const Napi::Object& o) {
  msb::GrepOptions options;
  options.pattern = o.Get("pattern").As<Napi::String>().Utf8Value();
  options.literal = o.Get("literal").ToBoolean();
  options.ignore_case = o.Get("ignoreCase").ToBoolean();
  options.word = o.Get("word").ToBoolean();
  options.invert = o.Get("invert").ToBoolean();
  options.columns = o.Get("columns").ToBoolean();
  const std::string output = o.Get("output").As<Napi::String>().Utf8Value();
  options.output = output == "files"   ? msb::GrepOutput::files
                   : output == "count" ? msb::GrepOutput::count
                                       : msb::GrepOutput::lines;
  options.types = strings_from(o.Get("types").As<Napi::Array>());
  options.include = strings_from(o.Get("include").As<Napi::Array>());
  options.exclude = strings_from(o.Get("exclude").As<Napi::Array>());
  options.before = o.Get("before").As<Napi::Number>().Uint32Value();
  options.after = o.Get("after").As<Napi::Number>().Uint32Value();
  options.max_count = o.Get("maxCount").As<Napi::Number>().Uint32Value();
  options.max_results = o.Get("maxResults").As<Napi::Number>().Uint32Value();
  options.max_line_bytes = o.Get("maxLineBytes").As<Napi::Number>().Uint32Value();
  options.ignore_files = o.Get("ignoreFiles").ToBoolean();
  options.hidden = o.Get("hidden").ToBoolean();
  options.max_bytes =
      static_cast<std::uint64_t>(o.Get("maxBytes").As<Napi::Number>().DoubleValue());
  options.max_cpu_ms =
      static_cast<std::uint64_t>(o.Get("maxCpuMs").As<Napi::Number>().DoubleValue());
  options.threads = o.Get("threads").As<Napi::Number>().Uint32Value();
  return options;
}

}  // namespace

// grep(dir, options, cancelFlag): cancelFlag an Int32Array over a SharedArrayBuffer, or undefined.
Napi::Value SandboxWrap::Grep(const Napi::CallbackInfo& info) {
  const std::string dir = info[0].As<Napi::String>().Utf8Value();
  msb::GrepOptions options = grep_options_from(info[1].As<Napi::Object>());
  const std::atomic<std::int32_t>* cancel = nullptr;
  if (info[2].IsTypedArray()) {
    auto flag = info[2].As<Napi::Int32Array>();
    // The facade keeps the buffer until the promise settles; its first element is the flag.
    static_assert(sizeof(std::atomic<std::int32_t>) == sizeof(std::int32_t));
    cancel = reinterpret_cast<const std::atomic<std::int32_t>*>(flag.Data());
  }
  auto core = core_;
  return Operation<msb::GrepResult>::Start(
      Value(), make_error_, dir,
      [core, dir, options = std::move(options), cancel] {
        return msb::grep(*core, dir, options, cancel);
      },
      to_grep_result);
}

}  // namespace msb_binding
