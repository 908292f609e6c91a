//===- shim.cpp - Tessera behind a C ABI, for compare.py's ctypes ----------===//
//
// compare.py launches each corpus entry with Triton and with Tessera on the
// same PyTorch tensors. Tessera has no Python binding yet, so this shim puts
// the public C++ API behind a few C functions: load a program, list a
// kernel's parameters and autotune configs, launch it. Tensors arrive as
// DLManagedTensor* (torch.utils.dlpack.to_dlpack); scalars, descriptors and
// constexprs as short text lines (formats at tsr_launch). Errors come back as
// text, never as a C++ exception across the C boundary.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tessera/dlpack.h"
#include "tessera/tessera.h"

namespace {

int fail(const std::string& what, char* error, int capacity) {
  std::strncpy(error, what.c_str(), capacity - 1);
  error[capacity - 1] = 0;
  return 1;
}

int put(const std::string& text, char* out, int capacity, char* error, int error_capacity) {
  if (static_cast<int>(text.size()) >= capacity) return fail("output buffer too small", error, error_capacity);
  std::memcpy(out, text.c_str(), text.size() + 1);
  return 0;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) parts.push_back(cur);
  return parts;
}

std::vector<int64_t> ints(const std::string& s) {
  std::vector<int64_t> v;
  for (const auto& p : split(s, ',')) if (!p.empty()) v.push_back(std::strtoll(p.c_str(), nullptr, 10));
  return v;
}

tessera::DType dtypeNamed(const std::string& name) {
  for (int d = 0; d <= static_cast<int>(tessera::DType::fp64); ++d)
    if (name == tessera::dtype_name(static_cast<tessera::DType>(d))) return static_cast<tessera::DType>(d);
  throw tessera::Error("shim: unknown dtype '" + name + "'");
}

std::string valueText(const tessera::Value& v) {
  if (auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&v)) {
    std::ostringstream o;
    o.precision(17);
    o << *d;
    return o.str();
  }
  if (std::holds_alternative<std::monostate>(v)) return "None";
  return "'" + std::get<std::string>(v) + "'";
}

tessera::Device& device() {
  static tessera::Device dev = tessera::Device::cuda(0);
  return dev;
}

}  // namespace

extern "C" {

/// A heap-allocated tessera::Program for FILE; SEARCH is a ':'-separated
/// module search path (may be empty). Null on error.
void* tsr_program(const char* file, const char* search, char* error, int capacity) {
  try {
    tessera::ProgramOptions options;
    for (const auto& dir : split(search, ':')) if (!dir.empty()) options.search_path.push_back(dir);
    return new tessera::Program(tessera::Program::from_file(file, options));
  } catch (const std::exception& e) {
    fail(e.what(), error, capacity);
    return nullptr;
  }
}

/// One line per parameter: "NAME\tc" (constexpr) or "NAME\tr".
int tsr_params(void* program, const char* kernel, char* out, int capacity, char* error, int error_capacity) {
  try {
    std::string text;
    for (const auto& p : static_cast<tessera::Program*>(program)->kernel(kernel).parameters())
      text += p.name + (p.is_constexpr ? "\tc\n" : "\tr\n");
    return put(text, out, capacity, error, error_capacity);
  } catch (const std::exception& e) {
    return fail(e.what(), error, error_capacity);
  }
}

/// One line per autotune config as Tessera's host evaluator computed it:
/// "num_warps=W num_stages=S NAME=VALUE ..." (names sorted).
int tsr_configs(void* program, const char* kernel, char* out, int capacity, char* error, int error_capacity) {
  try {
    std::string text;
    for (const auto& c : static_cast<tessera::Program*>(program)->kernel(kernel).autotune_configs()) {
      text += "num_warps=" + std::to_string(c.num_warps) + " num_stages=" + std::to_string(c.num_stages);
      for (const auto& [name, value] : c.kwargs) text += " " + name + "=" + valueText(value);
      text += "\n";
    }
    return put(text, out, capacity, error, error_capacity);
  } catch (const std::exception& e) {
    return fail(e.what(), error, error_capacity);
  }
}

/// The config Tessera's autotuner chose for KERNEL's latest launch, as
/// tsr_configs prints one ("" before any).
int tsr_best_config(void* program, const char* kernel, char* out, int capacity, char* error, int error_capacity) {
  try {
    std::string text;
    if (auto c = static_cast<tessera::Program*>(program)->kernel(kernel).best_config()) {
      text = "num_warps=" + std::to_string(c->num_warps) + " num_stages=" + std::to_string(c->num_stages);
      for (const auto& [name, value] : c->kwargs) text += " " + name + "=" + valueText(value);
    }
    return put(text, out, capacity, error, error_capacity);
  } catch (const std::exception& e) {
    return fail(e.what(), error, error_capacity);
  }
}

/// The grid callable of a launch, in Python: gets the launch's meta-parameters
/// as "NAME\tKIND\tVALUE" lines (KIND: I F B S) and writes 1-3 dims to
/// DIMS, returning how many (0 on error).
typedef int (*tsr_grid_fn)(const char* meta, int64_t* dims);

/// Launches KERNEL over GRID (NGRID dims; or, when GRID_FN is given, the
/// dims it returns for the launch's meta-parameters) and waits for it.
/// ARGS: the positional arguments, one line each:
///   T i [DTYPE]      tensor DL[i] (a DLManagedTensor*, consumed), retyped
///                    to DTYPE when given (fp8 travels as uint8)
///   D i [DTYPE]|SHAPE|STRIDES|BLOCK|PADDING
///                    a host tensor descriptor over DL[i]; lists are
///                    comma-separated
///   I v | U v | F v | B 0/1 | N     int, uint64, float, bool, None
/// META: "NAME\tKIND\tVALUE" lines, KIND one of I F B S (string).
int tsr_launch(void* program, const char* kernel, const int64_t* grid, int ngrid, tsr_grid_fn grid_fn,
               const char* args, void** dl, int ndl, const char* meta, int num_warps, int num_stages, char* error,
               int capacity) {
  std::vector<bool> consumed(ndl, false);
  try {
    auto tensorAt = [&](const std::string& index, const std::string& dtype) {
      int i = std::atoi(index.c_str());
      if (i < 0 || i >= ndl || consumed[i]) throw tessera::Error("shim: bad tensor index " + index);
      consumed[i] = true;
      tessera::Tensor t = tessera::from_dlpack(dl[i]);
      if (!dtype.empty()) t = tessera::Tensor(t.storage(), dtypeNamed(dtype), t.shape(), t.strides(), t.storage_offset());
      return t;
    };
    std::vector<tessera::Arg> list;
    for (const auto& line : split(args, '\n')) {
      if (line.empty()) continue;
      char kind = line[0];
      std::string rest = line.size() > 2 ? line.substr(2) : "";
      if (kind == 'T') {
        auto words = split(rest, ' ');
        list.emplace_back(tensorAt(words.at(0), words.size() > 1 ? words[1] : ""));
      } else if (kind == 'D') {
        auto fields = split(rest, '|');
        if (fields.size() != 5) throw tessera::Error("shim: bad descriptor line '" + line + "'");
        auto words = split(fields[0], ' ');
        tessera::TensorDescriptor d;
        d.base = tensorAt(words.at(0), words.size() > 1 ? words[1] : "");
        d.shape = ints(fields[1]);
        d.strides = ints(fields[2]);
        d.block_shape = ints(fields[3]);
        d.padding = fields[4];
        list.emplace_back(d);
      } else if (kind == 'I') {
        list.emplace_back(static_cast<int64_t>(std::strtoll(rest.c_str(), nullptr, 10)));
      } else if (kind == 'U') {
        list.emplace_back(static_cast<uint64_t>(std::strtoull(rest.c_str(), nullptr, 10)));
      } else if (kind == 'F') {
        list.emplace_back(std::strtod(rest.c_str(), nullptr));
      } else if (kind == 'B') {
        list.emplace_back(rest == "1");
      } else if (kind == 'N') {
        list.emplace_back(nullptr);
      } else {
        throw tessera::Error("shim: bad argument line '" + line + "'");
      }
    }
    tessera::Meta constexprs;
    for (const auto& line : split(meta, '\n')) {
      auto f = split(line, '\t');
      if (f.empty() || f[0].empty()) continue;
      if (f.size() != 3) throw tessera::Error("shim: bad meta line '" + line + "'");
      if (f[1] == "I") constexprs[f[0]] = static_cast<int64_t>(std::strtoll(f[2].c_str(), nullptr, 10));
      else if (f[1] == "F") constexprs[f[0]] = std::strtod(f[2].c_str(), nullptr);
      else if (f[1] == "B") constexprs[f[0]] = f[2] == "1";
      else constexprs[f[0]] = f[2];
    }
    tessera::LaunchOptions options;
    options.num_warps = num_warps;
    options.num_stages = num_stages;
    tessera::Grid dims{std::vector<int64_t>(grid, grid + ngrid)};
    if (grid_fn)
      dims = tessera::Grid(std::function<std::vector<int64_t>(const tessera::Meta&)>([grid_fn](const tessera::Meta& m) {
        std::string text;
        for (const auto& [name, v] : m) {
          char kind = std::holds_alternative<bool>(v)      ? 'B'
                      : std::holds_alternative<int64_t>(v) ? 'I'
                      : std::holds_alternative<double>(v)  ? 'F'
                                                           : 'S';
          std::string value = kind == 'S' ? std::get<std::string>(v) : valueText(v);
          text += name + "\t" + kind + "\t" + value + "\n";
        }
        int64_t out[3] = {1, 1, 1};
        int n = grid_fn(text.c_str(), out);
        if (n < 1 || n > 3) throw tessera::Error("shim: the grid callable failed");
        return std::vector<int64_t>(out, out + n);
      }));
    static_cast<tessera::Program*>(program)->kernel(kernel).launch(device(), dims, list, constexprs, options);
    device().synchronize();
    return 0;
  } catch (const std::exception& e) {
    // Tensors not reached were not consumed: free them (DLPack's contract).
    for (int i = 0; i < ndl; ++i)
      if (!consumed[i]) {
        auto* m = static_cast<tessera::dlpack::ManagedTensor*>(dl[i]);
        if (m && m->deleter) m->deleter(m);
      }
    return fail(e.what(), error, capacity);
  }
}

}  // extern "C"
