//===- Env.cpp - The TESSERA_* environment variables ----------------------===//
//
// See tessera/support/Env.h. The table below is the one list of knobs; the
// user guide's table of environment variables follows it row for row.
//
//===----------------------------------------------------------------------===//

#include "tessera/support/Env.h"

#include <cassert>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <mutex>
#include <set>

#include "tessera/Error.h"

namespace tessera::env {

namespace {

constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// The '|'-separated words of a Choice or List row.
std::vector<std::string> words(const char* choices) {
  std::vector<std::string> out;
  std::string w;
  for (const char* p = choices; *p; ++p) {
    if (*p == '|') {
      out.push_back(w);
      w.clear();
    } else {
      w += *p;
    }
  }
  out.push_back(w);
  return out;
}

const Knob& knob(const char* name, Kind kind) {
  const Knob* k = find(name);
  assert(k && "every TESSERA_* variable the library reads must be a row of env::knobs()");
  assert(k->kind == kind && "a knob is read with the accessor of its kind");
  (void)kind;
  return *k;
}

[[noreturn]] void invalid(const Knob& k, const std::string& value, const std::string& expected) {
  throw Error(std::string(k.name) + "='" + value + "' is not valid: expected " + expected + " (" + k.summary + ")");
}

}  // namespace

const std::vector<Knob>& knobs() {
  static const std::vector<Knob> table = {
      // Where kernels run.
      {"TESSERA_INTERPRET", Kind::Flag, false, 0, 0, "", "1: run every kernel on the CPU interpreter"},
      {"TESSERA_DEVICE", Kind::Choice, false, 0, 0, "auto|cuda|interpreter",
       "the default device: auto (the GPU when usable, else the interpreter, saying why once), cuda (no "
       "fallback: an error without a usable GPU) or interpreter"},
      {"TESSERA_NUM_THREADS", Kind::Integer, false, 1, 4096, "",
       "threads of the interpreter and the parallel compiles (default: the CPUs this process may use)"},
      {"TESSERA_INTERPRETER_LOOP_LIMIT", Kind::Integer, false, 0, kNoMax, "",
       "loop iterations one interpreted program may run before the launch stops with an error (0: no limit)"},
      {"TESSERA_CUDA_ALLOCATOR", Kind::Choice, false, 0, 0, "pool|plain",
       "pool (stream-ordered memory pool, the default) or plain (cuMemAlloc per tensor, for compute-sanitizer)"},
      // What code is generated (each is part of every kernel cache key).
      {"TESSERA_CUDA_ARCH", Kind::Text, true, 0, 0, "", "compile for this architecture (sm_80, sm_90a, ...)"},
      {"TESSERA_CUDA_LIBRARY_PATH", Kind::Text, false, 0, 0, "",
       "directories (':'-separated) searched for nvJitLink and NVRTC after the CUDA toolkit's (the tessera "
       "Python package adds the NVIDIA wheels PyTorch installed)"},
      {"TESSERA_ASSEMBLER", Kind::Choice, true, 0, 0, "nvjitlink|ptxas",
       "nvjitlink (in process, the default) or ptxas (the toolkit's program, whole-program)"},
      {"TESSERA_MAXNREG", Kind::Integer, true, 16, 255, "",
       "registers per thread of every kernel not launched with its own maxnreg"},
      {"TESSERA_POINTER_TMA", Kind::Flag, true, 0, 0, "",
       "0: pointer tiles keep their cp.async copies on sm_90a instead of becoming TMA copies"},
      {"TESSERA_WARP_SPECIALIZE", Kind::Flag, true, 0, 0, "",
       "0: a loop gets a producer warpgroup only where tl.range(..., warp_specialize=True) asks (by default "
       "also loops of two or more wgmma dots)"},
      {"TESSERA_DEBUG", Kind::Flag, true, 0, 0, "", "1: device_assert is checked in every kernel"},
      {"TRITON_DEBUG", Kind::Flag, true, 0, 0, "", "Triton's name for TESSERA_DEBUG"},
      {"TESSERA_INLINE_BUDGET", Kind::Integer, false, 1, int64_t{1} << 31, "",
       "operations a kernel may have once its calls are inlined (default 250000)"},
      // Programs of several files and their host Python.
      {"TESSERA_PATH", Kind::Text, false, 0, 0, "",
       "directories (':'-separated) searched for the modules kernel files import, before the file's own "
       "directory and package root"},
      {"TESSERA_HOST_STEPS", Kind::Integer, false, 1000, int64_t{1} << 40, "",
       "steps the host-Python evaluator may take per module import chain or decorator (default 20000000)"},
      // Caches.
      {"TESSERA_CACHE_DIR", Kind::Text, false, 0, 0, "", "the disk cache (default ~/.cache/tessera)"},
      {"TESSERA_ALWAYS_COMPILE", Kind::Flag, false, 0, 0, "",
       "1: compile every kernel and libdevice wrapper anew, reading no cache entry"},
      {"TESSERA_AUTOTUNE_RESTORE", Kind::Flag, false, 0, 0, "",
       "0: do not restore tensors a config wrote during autotuning"},
      // Diagnostics.
      {"TESSERA_DUMP", Kind::List, false, 0, 0, "ttir|ttgir|ptx|sass|all|after-all",
       "print these stages on stderr (after-all: the IR after every GPU pass)"},
      {"TESSERA_DUMP_DIR", Kind::Text, false, 0, 0, "",
       "write the TESSERA_DUMP stages (ttir, ttgir and ptx when TESSERA_DUMP is unset) to files under this directory, "
       "one directory per specialization"},
      {"TESSERA_PRINT_AUTOTUNING", Kind::Flag, false, 0, 0, "", "1: print each autotuning result"},
      {"TESSERA_PRINT_RECOMPILES", Kind::Flag, false, 0, 0, "", "1: say why a launch compiles again"},
      {"TESSERA_PROFILE", Kind::Text, false, 0, 0, "", "write a Chrome trace of compiles and launches to this file"},
      {"TESSERA_RECORD_LAUNCHES", Kind::Text, false, 0, 0, "",
       "append each compiled specialization to this file (the CLI tests replay it)"},
  };
  return table;
}

const Knob* find(std::string_view name) {
  for (const Knob& k : knobs())
    if (name == k.name) return &k;
  return nullptr;
}

std::optional<std::string> text(const char* name) {
  assert(find(name) && "every TESSERA_* variable the library reads must be a row of env::knobs()");
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

bool flag(const char* name, bool dflt) {
  const Knob& k = knob(name, Kind::Flag);
  std::optional<std::string> v = text(name);
  if (!v) return dflt;
  std::string w = lower(*v);
  if (w == "1" || w == "true" || w == "yes" || w == "on") return true;
  if (w == "0" || w == "false" || w == "no" || w == "off") return false;
  invalid(k, *v, "1 or 0 (true/false, yes/no, on/off)");
}

std::optional<int64_t> integer(const char* name) {
  const Knob& k = knob(name, Kind::Integer);
  std::optional<std::string> v = text(name);
  if (!v) return std::nullopt;
  std::string range = "an integer from " + std::to_string(k.min) + " to " + std::to_string(k.max);
  const std::string& s = *v;
  size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
  if (i == s.size()) invalid(k, s, range);
  int64_t value = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') invalid(k, s, range);
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, s[i] - '0', &value))
      invalid(k, s, range);
  }
  if (s[0] == '-') value = -value;
  if (value < k.min || value > k.max) invalid(k, s, range);
  return value;
}

std::string choice(const char* name, const std::string& dflt) {
  const Knob& k = knob(name, Kind::Choice);
  std::optional<std::string> v = text(name);
  if (!v) return dflt;
  std::string w = lower(*v);
  std::string expected;
  for (const std::string& c : words(k.choices)) {
    if (w == c) return c;
    expected += (expected.empty() ? "" : ", ") + c;
  }
  invalid(k, *v, "one of " + expected);
}

std::vector<std::string> list(const char* name) {
  const Knob& k = knob(name, Kind::List);
  std::optional<std::string> v = text(name);
  std::vector<std::string> out;
  if (!v) return out;
  std::vector<std::string> known = words(k.choices);
  std::string w;
  auto take = [&] {
    std::string word = lower(w);
    w.clear();
    while (!word.empty() && word.back() == ' ') word.pop_back();
    while (!word.empty() && word.front() == ' ') word.erase(0, 1);
    if (word.empty()) return;
    for (const std::string& c : known)
      if (c == word) {
        out.push_back(word);
        return;
      }
    std::string expected;
    for (const std::string& c : known) expected += (expected.empty() ? "" : ", ") + c;
    warnOnce(std::string(k.name) + "=" + word, std::string(k.name) + ": ignoring unknown '" + word +
                                                    "' (expected a comma-separated list of " + expected + ")");
  };
  for (char c : *v) {
    if (c == ',') take();
    else w += c;
  }
  take();
  return out;
}

std::string codeKnobs() {
  std::string out;
  for (const Knob& k : knobs()) {
    if (!k.changesCode) continue;
    const char* v = std::getenv(k.name);
    if (v && *v) out += std::string(k.name) + "=" + v + "\n";
  }
  return out;
}

void warnOnce(const std::string& key, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!warned.insert(key).second) return;
  }
  std::cerr << "tessera: warning: " << message << std::endl;
}

}  // namespace tessera::env
