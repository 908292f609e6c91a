//===- Assembler.cpp - PTX -> cubin with nvJitLink, cubin -> SASS ---------===//
//
// assemble(): one nvJitLink session per kernel, on one module: the kernel's
// PTX with the libdevice wrappers from NVRTC (Libdevice.cpp) merged in; or,
// with TESSERA_ASSEMBLER=ptxas, the toolkit's ptxas program on that module
// in whole-program mode. -O3 and -verbose, whose report gives registers,
// spills and the stack frame. Errors carry the
// assembler's log and the PTX lines it points at. disassemble(): nvdisasm
// (or cuobjdump -sass) on a file in a scratch directory.
//
//===----------------------------------------------------------------------===//

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <optional>
#include <utility>

#include "runtime/DynamicLibrary.h"
#include "runtime/Process.h"
#include "runtime/Toolkit.h"
#include "tessera/runtime/DiskCache.h"
#include "tessera/runtime/Driver.h"
#include "tessera/Error.h"
#include "tessera/support/Env.h"

namespace tessera::runtime {

namespace fs = std::filesystem;

namespace {

constexpr int kInputPtx = 2;  // NVJITLINK_INPUT_PTX

const char* jitLinkResultName(int r) {
  static const char* names[] = {"NVJITLINK_SUCCESS",
                                "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
                                "NVJITLINK_ERROR_MISSING_ARCH",
                                "NVJITLINK_ERROR_INVALID_INPUT",
                                "NVJITLINK_ERROR_PTX_COMPILE",
                                "NVJITLINK_ERROR_NVVM_COMPILE",
                                "NVJITLINK_ERROR_INTERNAL",
                                "NVJITLINK_ERROR_THREADPOOL",
                                "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
                                "NVJITLINK_ERROR_FINALIZE",
                                "NVJITLINK_ERROR_NULL_INPUT",
                                "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
                                "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
                                "NVJITLINK_ERROR_ARCH_MISMATCH",
                                "NVJITLINK_ERROR_OUTDATED_LIBRARY",
                                "NVJITLINK_ERROR_MISSING_FATBIN",
                                "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
                                "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
                                "NVJITLINK_ERROR_LTO_NOT_ENABLED"};
  if (r >= 0 && r < static_cast<int>(std::size(names))) return names[r];
  return "NVJITLINK_ERROR_UNKNOWN";
}

/// Resolves `name`, or a versioned export such as __nvJitLinkCreate_12_4.
void* jitLinkSymbol(const DynamicLibrary& lib, const std::string& name) {
  if (void* p = lib.symbol(name.c_str())) return p;
  for (int major = 13; major >= 12; --major)
    for (int minor = 9; minor >= 0; --minor)
      if (void* p = lib.symbol(("__" + name + "_" + std::to_string(major) + "_" + std::to_string(minor)).c_str()))
        return p;
  return nullptr;
}

/// Owns an nvJitLink handle.
struct LinkSession {
  const JitLinkApi& api;
  JitLinkApi::Handle handle = nullptr;
  ~LinkSession() {
    if (handle) api.destroy(&handle);
  }
  std::string log(bool error) const {
    size_t size = 0;
    if ((error ? api.getErrorLogSize : api.getInfoLogSize)(handle, &size) != 0 || size == 0) return "";
    std::string text(size, '\0');
    (error ? api.getErrorLog : api.getInfoLog)(handle, text.data());
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    return text;
  }
};

/// The PTX lines an assembler log refers to ("ptx input, line 19"), quoted
/// so the user sees the offending instruction without dumping the PTX.
std::string quotedPtxLines(const std::string& log, const std::string& ptx) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= ptx.size();) {
    size_t end = ptx.find('\n', start);
    if (end == std::string::npos) end = ptx.size();
    lines.emplace_back(ptx.data() + start, end - start);
    start = end + 1;
  }
  std::string out;
  std::vector<int> seen;
  for (size_t pos = log.find("line "); pos != std::string::npos; pos = log.find("line ", pos + 5)) {
    int n = std::atoi(log.c_str() + pos + 5);
    if (n < 1 || n > static_cast<int>(lines.size()) || seen.size() >= 8) continue;
    bool dup = false;
    for (int s : seen) dup = dup || s == n;
    if (dup) continue;
    seen.push_back(n);
    out += "\n  PTX line " + std::to_string(n) + ": " + std::string(lines[n - 1]);
  }
  return out;
}

/// The number that ends right before `suffix` in `line`; -1 if none.
int numberBefore(const std::string& line, const char* suffix) {
  size_t pos = line.find(suffix);
  if (pos == std::string::npos) return -1;
  size_t end = pos;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  if (begin == end) return -1;
  return std::atoi(line.substr(begin, end - begin).c_str());
}

}  // namespace

//===----------------------------------------------------------------------===//
// Opening the library
//===----------------------------------------------------------------------===//

const JitLinkApi& jitLinkApi() {
  static const JitLinkApi* api = [] {
    auto* a = new JitLinkApi();
    static DynamicLibrary lib(
        toolkitLibraryCandidates({"libnvJitLink.so", "libnvJitLink.so.13", "libnvJitLink.so.12"}));
    if (!lib.isOpen()) {
      a->error = "nvJitLink (CUDA toolkit 12.4 or newer) could not be opened; set CUDA_HOME to the toolkit (" +
                 lib.error() + ")";
      return a;
    }
    a->path = lib.path();
    struct Entry {
      const char* name;
      void** slot;
    };
    auto slot = [](auto& fn) { return reinterpret_cast<void**>(&fn); };
    const Entry entries[] = {
        {"nvJitLinkCreate", slot(a->create)},
        {"nvJitLinkDestroy", slot(a->destroy)},
        {"nvJitLinkAddData", slot(a->addData)},
        {"nvJitLinkComplete", slot(a->complete)},
        {"nvJitLinkGetLinkedCubinSize", slot(a->getLinkedCubinSize)},
        {"nvJitLinkGetLinkedCubin", slot(a->getLinkedCubin)},
        {"nvJitLinkGetErrorLogSize", slot(a->getErrorLogSize)},
        {"nvJitLinkGetErrorLog", slot(a->getErrorLog)},
        {"nvJitLinkGetInfoLogSize", slot(a->getInfoLogSize)},
        {"nvJitLinkGetInfoLog", slot(a->getInfoLog)},
    };
    for (const Entry& e : entries) {
      *e.slot = jitLinkSymbol(lib, e.name);
      if (!*e.slot) {
        a->error = "nvJitLink (" + lib.path() + ") lacks " + e.name;
        return a;
      }
    }
    *slot(a->version) = lib.symbol("nvJitLinkVersion");
    return a;
  }();
  return *api;
}

bool toolkitAvailable(std::string* why) {
  const JitLinkApi& link = jitLinkApi();
  const NvrtcApi& nvrtc = nvrtcApi();
  std::string reason = !link.error.empty() ? link.error : nvrtc.error;
  if (why) *why = reason;
  return reason.empty();
}

//===----------------------------------------------------------------------===//
// Assembling
//===----------------------------------------------------------------------===//

namespace {

Cubin assembleWithJitLink(const gpu::PtxKernel& kernel, const gpu::Target& target) {
  const JitLinkApi& api = jitLinkApi();
  const std::string prefix = "kernel '" + kernel.name + "': ";
  if (!api.error.empty()) throw Error(prefix + "cannot assemble the PTX: " + api.error);
  // One module with the libdevice wrappers merged in: ptxas can inline a
  // call within a module, not across two linked inputs (the erf-based GELU:
  // 38 registers instead of 42).
  std::string ptx = kernel.ptx;
  if (!kernel.externs.empty()) ptx = wholeProgramPtx(ptx, libdevicePtx(kernel.externs, target, kernel.name));
  ptx = withAssemblerPtxVersion(ptx);

  std::string arch = "-arch=" + target.name();
  const char* options[] = {arch.c_str(), "-O3", "-verbose"};
  LinkSession session{api};
  int r = api.create(&session.handle, 3, options);
  if (r != 0)
    throw Error(prefix + "nvJitLink (" + api.path + ") refused the options " + arch + " -O3 -verbose: " +
                jitLinkResultName(r));
  auto fail = [&](int result, const std::string& what) {
    std::string log = session.log(/*error=*/true);
    throw Error(prefix + "the assembler (nvJitLink) failed " + what + " for " + target.name() + ": " +
                jitLinkResultName(result) + (log.empty() ? "" : "\n" + log) + quotedPtxLines(log, ptx));
  };
  std::string inputName = kernel.name + ".ptx";
  r = api.addData(session.handle, kInputPtx, ptx.data(), ptx.size(), inputName.c_str());
  if (r != 0) fail(r, "on the kernel's PTX");
  r = api.complete(session.handle);
  if (r != 0) fail(r, "linking");

  Cubin cubin;
  size_t size = 0;
  r = api.getLinkedCubinSize(session.handle, &size);
  if (r != 0 || size == 0) fail(r, "producing the cubin");
  cubin.bytes.resize(size);
  r = api.getLinkedCubin(session.handle, cubin.bytes.data());
  if (r != 0) fail(r, "producing the cubin");
  cubin.infoLog = session.log(/*error=*/false);
  parseAssemblerReport(cubin.infoLog, kernel.name, cubin);
  return cubin;
}

/// The name a .func declaration or definition line declares ("" for other
/// lines): `[.extern|.visible|.weak] .func [(ret params)] NAME (params)`.
std::string ptxFunctionName(const std::string& line) {
  size_t at = line.find(".func");
  if (at == std::string::npos) return "";
  for (size_t i = 0; i < at; ++i)
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '.' && !std::isalpha(static_cast<unsigned char>(line[i])))
      return "";
  size_t i = at + 5;
  auto skipSpace = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  };
  skipSpace();
  if (i < line.size() && line[i] == '(') {
    size_t close = line.find(')', i);
    if (close == std::string::npos) return "";
    i = close + 1;
    skipSpace();
  }
  size_t begin = i;
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' || line[i] == '$'))
    ++i;
  return line.substr(begin, i - begin);
}

/// The PTX version of a module ("9.0" -> 90), 0 when it has none.
int ptxVersion(const std::string& ptx) {
  size_t at = ptx.rfind(".version ", 0) == 0 ? 0 : ptx.find("\n.version ");
  if (at == std::string::npos) return 0;
  if (ptx[at] == '\n') ++at;
  int major = 0, minor = 0;
  if (std::sscanf(ptx.c_str() + at + 9, "%d.%d", &major, &minor) < 1) return 0;
  return major * 10 + minor;
}

}  // namespace

std::string wholeProgramPtx(const std::string& kernelPtx, const std::string& libraryPtx) {
  // The library's definitions, without its header (.version, .target,
  // .address_size) and comments.
  std::istringstream lib(libraryPtx);
  std::string body, line;
  std::vector<std::string> defined;
  while (std::getline(lib, line)) {
    size_t first = line.find_first_not_of(" \t");
    std::string trimmed = first == std::string::npos ? "" : line.substr(first);
    if (trimmed.rfind(".version", 0) == 0 || trimmed.rfind(".target", 0) == 0 ||
        trimmed.rfind(".address_size", 0) == 0 || trimmed.rfind("//", 0) == 0)
      continue;
    if (std::string name = ptxFunctionName(trimmed); !name.empty()) defined.push_back(name);
    body += line + "\n";
  }
  // The kernel without its declarations of what the library defines; the
  // library goes right after the kernel's header, before any use.
  std::istringstream in(kernelPtx);
  std::string out;
  bool inserted = false;
  int version = std::max(ptxVersion(kernelPtx), ptxVersion(libraryPtx));
  while (std::getline(in, line)) {
    if (line.rfind(".version ", 0) == 0 && version > 0) {
      out += ".version " + std::to_string(version / 10) + "." + std::to_string(version % 10) + "\n";
      continue;
    }
    if (line.rfind(".extern .func", 0) == 0 &&
        std::find(defined.begin(), defined.end(), ptxFunctionName(line)) != defined.end())
      continue;
    out += line + "\n";
    if (!inserted && line.rfind(".address_size", 0) == 0) {
      out += "\n" + body;
      inserted = true;
    }
  }
  if (!inserted) throw Error("internal error: the kernel's PTX has no .address_size line to put libdevice after");
  return out;
}

namespace {

/// TESSERA_ASSEMBLER=ptxas asks for whole-program ptxas; unset or
/// "nvjitlink": nvJitLink.
bool wantsPtxas() {
  return env::choice("TESSERA_ASSEMBLER", "nvjitlink") == "ptxas";
}

/// The toolkit's ptxas program and where it was looked for (empty path:
/// none).
const std::pair<std::string, std::string>& ptxasSearch() {
  static const std::pair<std::string, std::string> found = [] {
    std::string searched;
    std::string path = findToolkitProgram({"ptxas"}, &searched);
    return std::make_pair(path, searched);
  }();
  return found;
}

/// The toolkit's ptxas program (an error when there is none).
std::string ptxasProgram() {
  const auto& found = ptxasSearch();
  if (found.first.empty())
    throw Error("TESSERA_ASSEMBLER=ptxas, but no ptxas program was found in " + found.second);
  return found.first;
}

/// Whole-program assembly with the ptxas program, as Triton does. nvJitLink
/// compiles PTX as relocatable code (ptxas -c), which allocates registers
/// differently: the benchmark's fp16 residual+layernorm+dropout takes 109
/// registers there (80 with the .maxnreg step) and 64 here, but its online
/// softmax takes 32 here and 40 there and runs 5% slower with 32; and this
/// compile is 3-6x slower on the H100 machine (a process, and a more
/// thorough optimizer: 38 vs 6 ms for the softmax of the benchmark). So it is
/// the opt-in (TESSERA_ASSEMBLER=ptxas), not the default.
Cubin assembleWithPtxas(const gpu::PtxKernel& kernel, const gpu::Target& target, const std::string& ptxas) {
  const std::string prefix = "kernel '" + kernel.name + "': ";
  std::string ptx = kernel.ptx;
  if (!kernel.externs.empty()) ptx = wholeProgramPtx(ptx, libdevicePtx(kernel.externs, target, kernel.name));
  ptx = withAssemblerPtxVersion(ptx);
  ScratchDir dir("ptxas");
  std::string input = dir.file(kernel.name.size() < 200 ? kernel.name + ".ptx" : "kernel.ptx");
  std::string output = dir.file("kernel.cubin");
  writeFileOrThrow(input, ptx);
  std::string log;
  int status = runProgram({ptxas, "-arch=" + target.name(), "-O3", "-v", "-o", output, input}, log);
  if (status != 0)
    throw Error(prefix + "the assembler (" + ptxas + ") failed for " + target.name() +
                (status < 0 ? "" : " with exit status " + std::to_string(status)) + (log.empty() ? "" : ":\n" + log) +
                quotedPtxLines(log, ptx));
  Cubin cubin;
  std::string bytes = readFileOrThrow(output);
  cubin.bytes.assign(bytes.begin(), bytes.end());
  cubin.infoLog = log;
  parseAssemblerReport(cubin.infoLog, kernel.name, cubin);
  return cubin;
}

/// "ptxas <its --version's release and build lines> <file identity>", once
/// per process.
const std::string& ptxasIdentity() {
  static const std::string identity = [] {
    std::string program = ptxasProgram();
    std::string out, version;
    runProgram({program, "--version"}, out);
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
      if (line.find("release") != std::string::npos || line.rfind("Build", 0) == 0) version += line + "; ";
    return "ptxas " + version + fileIdentity(program);
  }();
  return identity;
}

/// "nvJitLink <major>.<minor> <file identity>", once per process.
const std::string& jitLinkIdentity() {
  static const std::string identity = [] {
    const JitLinkApi& api = jitLinkApi();
    unsigned major = 0, minor = 0;
    if (api.version) api.version(&major, &minor);
    std::string path = loadedLibraryPath(reinterpret_cast<const void*>(api.create), api.path);
    return "nvJitLink " + std::to_string(major) + "." + std::to_string(minor) + " " + fileIdentity(path);
  }();
  return identity;
}

}  // namespace

int ptxIsaOfCudaRelease(int major, int minor) {
  if (major >= 13) return 90;  // 13.0: PTX ISA 9.0 (later 13.x read it too)
  if (major < 12) return 0;
  // 12.0 .. 12.9; 12.6 kept 8.5, 12.7 was never released.
  static const int isa[] = {80, 81, 82, 83, 84, 85, 85, 85, 87, 88};
  return isa[std::min(std::max(minor, 0), 9)];
}

std::string withAssemblerPtxVersion(const std::string& ptx) {
  if (ptx.find(gpu::kInlineAsmPtxMarker) == std::string::npos) return ptx;
  static const int isa = [] {
    int major = 0, minor = 0;
    if (wantsPtxas()) {
      // "Cuda compilation tools, release 13.0, V13.0.48"
      const std::string& id = ptxasIdentity();
      size_t at = id.find("release ");
      if (at == std::string::npos || std::sscanf(id.c_str() + at + 8, "%d.%d", &major, &minor) != 2) return 0;
    } else {
      const JitLinkApi& api = jitLinkApi();
      unsigned ma = 0, mi = 0;
      if (!api.error.empty() || !api.version || api.version(&ma, &mi) != 0) return 0;
      major = static_cast<int>(ma);
      minor = static_cast<int>(mi);
    }
    return ptxIsaOfCudaRelease(major, minor);
  }();
  int current = ptxVersion(ptx);
  if (isa <= current) return ptx;
  size_t at = ptx.find("\n.version ");
  if (at == std::string::npos) return ptx;
  size_t end = ptx.find('\n', at + 1);
  return ptx.substr(0, at + 1) + ".version " + std::to_string(isa / 10) + "." + std::to_string(isa % 10) +
         (end == std::string::npos ? "" : ptx.substr(end));
}

std::string assemblerIdentity() {
  std::string sass;
  if (env::text("TESSERA_CUDA_ARCH") && cudaAvailable())
    sass = " for " + cudaDeviceNativeTarget(0).name();
  return (wantsPtxas() ? ptxasIdentity() : jitLinkIdentity()) + sass;
}

gpu::Target sassTarget(const gpu::Target& ptxTarget) {
  std::optional<std::string> forced = env::text("TESSERA_CUDA_ARCH");
  if (!forced || !cudaAvailable() || gpu::Target::parse(*forced).name() != ptxTarget.name())
    return ptxTarget;
  return cudaDeviceNativeTarget(0);
}

namespace {

/// Resident CTAs per multiprocessor for `registers` per thread (Hopper and
/// Ampere: 64K registers, allocated per warp in units of 256, i.e. per
/// thread in multiples of 8; at most 2048 threads and 32 CTAs).
int residentCtas(int registers, int threads) {
  int perThread = (std::max(registers, 1) + 7) / 8 * 8;
  return std::min({65536 / (perThread * threads), 2048 / threads, 32});
}

/// The most CTAs of `threads` threads a multiprocessor can hold at all.
int maxResidentCtas(int threads) { return std::min(2048 / threads, 32); }

/// Above half occupancy, the registers a cap may take away to reach full
/// occupancy: relocatable code often spends a few more than whole-program
/// ptxas would (the fp16 layernorm: 36 against 32), while a larger cut
/// changes the schedule (the online softmax, 40 -> 32: 8% slower).
constexpr int kLastStepRegisters = 4;

/// `kernel` with `.maxnreg cap` after its .maxntid line (nullopt without one).
std::optional<gpu::PtxKernel> withRegisterCap(const gpu::PtxKernel& kernel, int cap) {
  size_t at = kernel.ptx.find("\n.maxntid");
  if (at == std::string::npos) return std::nullopt;
  size_t lineEnd = kernel.ptx.find('\n', at + 1);
  if (lineEnd == std::string::npos) return std::nullopt;
  gpu::PtxKernel capped = kernel;
  capped.ptx.insert(lineEnd, "\n.maxnreg " + std::to_string(cap));
  return capped;
}

/// Shared memory one multiprocessor offers its CTAs (bytes), by compute
/// capability; 0 when unknown.
int64_t sharedMemoryPerMultiprocessor(int capability) {
  switch (capability) {
    case 90: return 228 * 1024;
    case 80: case 87: return 164 * 1024;
    case 86: case 89: return 100 * 1024;
    default: return 0;
  }
}

}  // namespace

int occupancyRegisterCap(int registers, int threads, int64_t sharedBytesPerCta, const gpu::Target& target) {
  int now = residentCtas(registers, threads);
  int full = maxResidentCtas(threads);
  if (now >= full) return 0;
  // Shared memory may already keep more CTAs out (a pipelined dot's
  // stages): then a register cap only adds spills. Each CTA also takes 1 KiB
  // of the multiprocessor's shared memory for the system.
  int64_t perSm = sharedMemoryPerMultiprocessor(target.capability);
  auto sharedAdmits = [&](int ctas) {
    return sharedBytesPerCta <= 0 || (perSm > 0 && perSm / (sharedBytesPerCta + 1024) >= ctas);
  };
  auto capFor = [&](int ctas) { return std::min(65536 / (ctas * threads) / 8 * 8, 255); };
  if (now * threads >= 1024) {
    // At or above half occupancy (32 of 64 warps) another CTA buys little
    // and a tighter cap can cost more than it gives, except for the last
    // step to full occupancy when a few registers stand in its way.
    int cap = capFor(full);
    return cap >= 32 && registers - cap <= kLastStepRegisters && sharedAdmits(full) ? cap : 0;
  }
  if (!sharedAdmits(now + 1)) return 0;
  int cap = capFor(now + 1);
  return cap < 32 || cap >= registers ? 0 : cap;
}

/// Assembles, then tries for one more resident CTA per multiprocessor:
/// when ptxas used enough registers to cost a CTA (it optimizes one thread's
/// schedule, not occupancy; in nvJitLink's relocatable mode it spends
/// registers freely), the PTX is assembled again with `.maxnreg` at the next
/// occupancy step and kept if it spills at most a few bytes. For
/// memory-bound kernels more resident warps mean more loads in flight (the
/// fp16 residual+layernorm+dropout of the benchmark: 109 registers and 2
/// CTAs of 256 threads -> 80 and 3). Not when shared memory keeps that CTA
/// out anyway (occupancyRegisterCap): attention at head_dim 128 has 160 KiB
/// of stages, and a cap to 128 registers only made it spill. TESSERA_ASSEMBLER=ptxas assembles with
/// the ptxas program instead, whole-program, as Triton does; it is several
/// times slower to compile and no faster to run overall (see assembleWithPtxas).
Cubin assemble(const gpu::PtxKernel& kernel, const gpu::Target& ptxTarget) {
  gpu::Target target = sassTarget(ptxTarget);
  if (wantsPtxas()) return assembleWithPtxas(kernel, target, ptxasProgram());
  // A warp-specialized kernel moves registers from its producer warpgroup
  // to the others (setmaxnreg). Relocatable code does not give the
  // consumers those registers: attention at head_dim 128 spilled 104 bytes
  // through nvJitLink and none through whole-program ptxas (CUDA 13.0).
  bool movesRegisters = kernel.ptx.find("setmaxnreg") != std::string::npos;
  if (movesRegisters && !ptxasSearch().first.empty()) return assembleWithPtxas(kernel, target, ptxasSearch().first);
  Cubin cubin = assembleWithJitLink(kernel, target);
  if (kernel.ptx.find("\n.maxnreg") != std::string::npos || movesRegisters || cubin.registers <= 0) return cubin;
  int threads = 32 * std::max(kernel.numWarps, 1);
  int cap = occupancyRegisterCap(cubin.registers, threads, int64_t{kernel.sharedBytes} + cubin.staticSharedBytes,
                                 target);
  if (cap == 0) return cubin;
  std::optional<gpu::PtxKernel> capped = withRegisterCap(kernel, cap);
  if (!capped) return cubin;
  try {
    Cubin tighter = assembleWithJitLink(*capped, target);
    if (tighter.spillStoreBytes + tighter.spillLoadBytes <= 32) return tighter;
  } catch (const Error&) {
    // nvJitLink refuses .maxnreg with some linked calls: keep the first cubin.
  }
  return cubin;
}

void parseAssemblerReport(const std::string& log, const std::string& kernelName, Cubin& out) {
  // ptxas reports "Compiling entry function 'k' for 'sm_90a'" and "Function
  // properties for k" followed by its numbers; the linker's final summary
  // ("Function properties for 'k':" / "used 24 registers, ..., 0 stack,
  // 0 bytes smem, ...") comes last and describes the linked code.
  std::istringstream lines(log);
  std::string line, current;
  while (std::getline(lines, line)) {
    for (const char* marker : {"Function properties for ", "Compiling entry function "}) {
      size_t pos = line.find(marker);
      if (pos == std::string::npos) continue;
      std::string name = line.substr(pos + std::strlen(marker));
      size_t end = name.find_first_of(" \t");
      name = name.substr(0, end);
      while (!name.empty() && (name.back() == ':' || name.back() == '\'')) name.pop_back();
      if (!name.empty() && name.front() == '\'') name.erase(0, 1);
      current = name;
    }
    if (current != kernelName) continue;
    if (int v = numberBefore(line, " registers"); v >= 0) out.registers = v;
    if (int v = numberBefore(line, " bytes stack frame"); v >= 0) out.stackFrameBytes = v;
    if (int v = numberBefore(line, " stack,"); v >= 0) out.stackFrameBytes = v;
    if (int v = numberBefore(line, " bytes spill stores"); v >= 0) out.spillStoreBytes = v;
    if (int v = numberBefore(line, " bytes spill loads"); v >= 0) out.spillLoadBytes = v;
    if (int v = numberBefore(line, " bytes smem"); v >= 0) out.staticSharedBytes = v;
  }
}

//===----------------------------------------------------------------------===//
// Disassembling
//===----------------------------------------------------------------------===//

std::string findToolkitProgram(const std::vector<std::string>& names, std::string* searched) {
  std::vector<std::string> dirs;
  const std::string& linkPath = jitLinkApi().path;
  if (linkPath.find('/') != std::string::npos)
    dirs.push_back(fs::path(linkPath).parent_path().parent_path().string() + "/bin");
  for (const std::string& root : toolkitRoots()) dirs.push_back(root + "/bin");
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty()) dirs.push_back(dir);
  }
  std::string list;
  for (size_t i = 0; i < dirs.size(); ++i) {
    const std::string& dir = dirs[i];
    if (std::find(dirs.begin(), dirs.begin() + i, dir) != dirs.begin() + i) continue;
    list += (list.empty() ? "" : ", ") + dir;
    for (const std::string& name : names) {
      std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  if (searched) *searched = list;
  return "";
}

std::string disassemble(const Cubin& cubin, const gpu::Target& target) {
  std::string searched;
  std::string tool = findToolkitProgram({"nvdisasm"}, &searched);
  std::string flag = "-c";
  if (tool.empty() && !(tool = findToolkitProgram({"cuobjdump"})).empty()) flag = "-sass";
  if (tool.empty())
    throw Error("disassembling a cubin (" + target.name() +
                ") needs nvdisasm or cuobjdump from the CUDA toolkit; neither was found in " + searched);
  ScratchDir dir("disassemble");
  std::string input = dir.file("kernel.cubin");
  writeFileOrThrow(input, std::string(cubin.bytes.begin(), cubin.bytes.end()));
  std::string output;
  if (runProgram({tool, flag, input}, output) != 0)
    throw Error("disassembling the cubin (" + target.name() + ") with " + tool + " failed" +
                (output.empty() ? std::string() : ":\n" + output));
  return output;
}

}  // namespace tessera::runtime
