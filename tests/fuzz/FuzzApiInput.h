//===- FuzzApiInput.h - Fuzzed command lines and launch arguments ---------===//
//
// The second fuzz target's one input, shared with the regression test that
// replays tests/fuzz/regressions-api/. The first byte picks what the rest is:
//
//   even  a `tessera compile` command line (arguments separated by '\n'),
//         parsed by the CLI's own parser (tools/tessera/CompileArgs.cpp);
//         what parses is compiled from a fixed file of kernels to Tile IR
//         (and to PTX with --emit ptx): signatures, -D values, options and
//         architectures meet the API's checks.
//   odd   a launch: a kernel of the same file, a grid, launch options and
//         a list of arguments and meta-parameters decoded from the bytes
//         (tensors of any dtype and size, ints, floats, bools, None, tensor
//         descriptors), run on the interpreter: argument binding,
//         specialization, autotune and heuristics keys, grid checks.
//
// tessera::Error and the CLI's UsageError are the expected outcomes of bad
// input; a crash, sanitizer report or hang is a bug. Grids stay tiny or
// beyond CUDA's limits (then an error), so a legal input runs in moments.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "CompileArgs.h"
#include "tessera/tessera.h"

namespace tessera::fuzz {

/// TESSERA_FUZZ_VERBOSE=1 prints how each input ended (for writing seeds).
inline void fuzzSay(const char* what, const std::string& detail) {
  if (const char* v = std::getenv("TESSERA_FUZZ_VERBOSE"); v && *v == '1')
    std::fprintf(stderr, "fuzz_api: %s%s%s\n", what, detail.empty() ? "" : ": ", detail.c_str());
}

inline const char* kApiKernels = R"(
import triton
import triton.language as tl

@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    keep = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=keep) + tl.load(y_ptr + offs, mask=keep), mask=keep)

@triton.jit
def scaled(x_ptr, scale, n: tl.int64, FLAG: tl.constexpr = False, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0) * scale
    if FLAG:
        v = -v
    tl.store(x_ptr + offs, v, mask=offs < n)

@triton.jit
def desc_copy(desc, out_ptr, BLOCK: tl.constexpr):
    tile = desc.load([0, 0])
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs[:, None] * BLOCK + offs[None, :], tile)

@triton.autotune(configs=[triton.Config({'BLOCK': 8}), triton.Config({'BLOCK': 16}, num_warps=2)], key=['n'])
@triton.jit
def tuned(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.full((BLOCK,), 1.0, tl.float32), mask=offs < n)

@triton.heuristics({'EVEN': lambda args: args['n'] % 16 == 0})
@triton.jit
def heur(x_ptr, n, EVEN: tl.constexpr, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    if EVEN:
        tl.store(x_ptr + offs, offs)
    else:
        tl.store(x_ptr + offs, offs, mask=offs < n)
)";

/// Reads the input front to back; past the end every read is 0.
struct Bytes {
  std::string_view s;
  size_t at = 0;
  uint8_t u8() { return at < s.size() ? static_cast<uint8_t>(s[at++]) : 0; }
  int64_t i64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t{u8()} << (8 * i);
    return static_cast<int64_t>(v);
  }
  std::string word() {
    std::string w;
    for (size_t n = u8() % 8; n > 0; --n) w += static_cast<char>('A' + u8() % 26);
    return w;
  }
};

inline void fuzzCommandLine(std::string_view text) {
  std::vector<std::string> args(1);
  for (char c : text) {
    if (c == '\n') args.emplace_back();
    else args.back() += c;
  }
  try {
    cli::CompileArgs c = cli::parseCompileArgs(args);
    CompiledKernel k = Program::from_source(kApiKernels, "api.py").kernel(c.kernel).compile(
        c.signature, c.defines, c.options, c.arch.find(',') == std::string::npos ? c.arch : "");
    k.asm_text("ttir");
    if (c.emit == "ptx") k.asm_text("ptx");
    fuzzSay("compiled", c.emit);
  } catch (const cli::UsageError& e) {
    fuzzSay("usage error", e.what());
  } catch (const Error& e) {
    fuzzSay("error", e.what());
  }
}

inline void fuzzLaunch(Bytes in) {
  static const char* kKernels[] = {"add", "scaled", "desc_copy", "tuned", "heur"};
  static const DType kTypes[] = {DType::fp32, DType::fp16, DType::bf16, DType::i32, DType::i64, DType::i8,
                                 DType::u8,   DType::i1,   DType::fp64, DType::fp8e5, DType::u64};
  static const int64_t kDims[] = {0, 1, 2, 3, -1, int64_t{1} << 31, 70000};
  static const char* kMetaNames[] = {"BLOCK", "FLAG", "n", "EVEN", "scale", "x_ptr", ""};
  Device dev = Device::interpreter();
  try {
    Kernel kernel = Program::from_source(kApiKernels, "api.py").kernel(kKernels[in.u8() % 5]);
    std::vector<int64_t> grid;
    for (size_t n = in.u8() % 4; n > 0; --n) grid.push_back(kDims[in.u8() % 7]);
    LaunchOptions options;
    if (in.u8() & 1) options.num_warps = static_cast<int>(in.u8()) - 8;
    if (in.u8() & 1) options.num_stages = static_cast<int>(in.u8()) - 2;
    if (in.u8() & 1) options.maxnreg = static_cast<int>(in.u8());
    std::vector<Arg> args;
    std::vector<Tensor> keep;
    for (size_t n = in.u8() % 7; n > 0; --n) {
      switch (in.u8() % 9) {
        case 0: {
          DType t = kTypes[in.u8() % 11];
          std::vector<int64_t> shape;
          for (size_t r = in.u8() % 3; r > 0; --r) shape.push_back(in.u8() % 40);
          keep.push_back(dev.zeros(t, shape));
          args.push_back(keep.back());
          break;
        }
        case 1: args.push_back(static_cast<int32_t>(in.i64())); break;
        case 2: args.push_back(in.i64()); break;
        case 3: args.push_back(static_cast<uint64_t>(in.i64())); break;
        case 4: args.push_back(static_cast<float>(in.i64() % 1000) / 7.0f); break;
        case 5: args.push_back(static_cast<double>(in.i64())); break;
        case 6: args.push_back(static_cast<bool>(in.u8() & 1)); break;
        case 7: args.push_back(nullptr); break;
        default: {
          Tensor base = dev.zeros(kTypes[in.u8() % 11], {in.u8() % 33, in.u8() % 33});
          keep.push_back(base);
          args.push_back(TensorDescriptor::from_tensor(base, {in.u8() % 40, in.u8() % 40}));
          break;
        }
      }
    }
    Meta meta;
    for (size_t n = in.u8() % 4; n > 0; --n) {
      std::string name = kMetaNames[in.u8() % 7];
      if (name.empty()) name = in.word();
      switch (in.u8() % 4) {
        case 0: meta[name] = int64_t{in.u8() % 2 ? int64_t{16} : in.i64()}; break;
        case 1: meta[name] = static_cast<bool>(in.u8() & 1); break;
        case 2: meta[name] = static_cast<double>(in.i64() % 100); break;
        default: meta[name] = in.word(); break;
      }
    }
    kernel.launch(dev, grid, args, meta, options);
    fuzzSay("launched", "");
  } catch (const Error& e) {
    fuzzSay("error", e.what());
  }
}

inline void fuzzApiInput(std::string_view text) {
  setenv("TESSERA_INTERPRETER_LOOP_LIMIT", "10000", 0);
  if (text.empty()) return;
  if ((static_cast<uint8_t>(text[0]) & 1) == 0)
    fuzzCommandLine(text.substr(1));
  else
    fuzzLaunch(Bytes{text.substr(1)});
}

}  // namespace tessera::fuzz
