//===- Dumps.cpp - TESSERA_DUMP and TESSERA_DUMP_DIR -------------------------===//
//
// The stages of each kernel compiled, for people reading what the compiler
// made: on stderr, or under TESSERA_DUMP_DIR one directory per
// specialization, as Triton's kernel dump does:
//
//   $TESSERA_DUMP_DIR/<kernel>-<12 hex digits: specialization and source>/
//     <kernel>.ttir                       the optimized Tile IR
//     <kernel>.<arch>.ttgir / .ptx / .sass
//     <kernel>.<arch>.passes/NN-<pass>.ttgir   with TESSERA_DUMP=after-all
//
// TESSERA_DUMP picks the stages (ttir, ttgir and ptx when only the
// directory is given). A file that cannot be written is a warning, never a
// failed compile.
//
//===----------------------------------------------------------------------===//

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "Internal.h"
#include "tessera/runtime/Hash.h"
#include "tessera/support/Env.h"

namespace tessera::detail {

namespace {

std::optional<std::string> dumpDirectory() {
  std::optional<std::string> dir = env::text("TESSERA_DUMP_DIR");
  if (dir && dir->empty()) return std::nullopt;
  return dir;
}

/// Writes `text` to `dir`/`file`, creating the directories; a warning on
/// failure.
void writeDumpFile(const std::filesystem::path& dir, const std::string& file, const std::string& text) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream out(dir / file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (ec || !out)
    env::warnOnce("TESSERA_DUMP_DIR", "TESSERA_DUMP_DIR: cannot write '" + (dir / file).string() + "'" +
                                          (ec ? " (" + ec.message() + ")" : std::string()) +
                                          " (said once; later dumps may fail too)");
}

/// One directory per specialization of one program: the key hashes the
/// specialization and the kernel's source (its modules included).
std::filesystem::path dumpDirectoryOf(const CompiledKernelImpl& k) {
  std::string digest = runtime::sha256Hex(k.specializationKey + "\n" + k.modulesDigest).substr(0, 12);
  return std::filesystem::path(*dumpDirectory()) / (k.name + "-" + digest);
}

}  // namespace

bool dumpWanted(const char* stage) {
  std::vector<std::string> stages = env::list("TESSERA_DUMP");
  // The directory alone: the stages the compile makes anyway (sass would
  // run the disassembler on every cubin).
  if (stages.empty() && dumpDirectory())
    return std::string(stage) == "ttir" || std::string(stage) == "ttgir" || std::string(stage) == "ptx";
  for (const std::string& s : stages)
    if (s == stage || (s == "all" && std::string(stage) != "after-all")) return true;
  return false;
}

void dumpStage(const char* stage, const CompiledKernelImpl& k, const std::string& target, const std::string& text) {
  if (!dumpWanted(stage)) return;
  if (dumpDirectory()) {
    writeDumpFile(dumpDirectoryOf(k), k.name + (target.empty() ? "" : "." + target) + "." + stage, text);
    return;
  }
  std::cerr << "// ----- " << stage << ": " << k.name << (target.empty() ? "" : " (" + target + ")") << " -----\n"
            << text << (text.empty() || text.back() == '\n' ? "" : "\n") << std::flush;
}

std::function<void(const std::string&, const ir::Module&)> afterPassDumper(const CompiledKernelImpl& k,
                                                                           const std::string& target) {
  if (!dumpWanted("after-all")) return nullptr;
  if (dumpDirectory()) {
    auto dir = dumpDirectoryOf(k) / (k.name + "." + target + ".passes");
    // A run with fewer passes must not leave an earlier run's files.
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    auto count = std::make_shared<int>(0);
    return [dir, count](const std::string& pass, const ir::Module& module) {
      std::ostringstream file;
      file << std::setw(2) << std::setfill('0') << ++*count << "-" << pass << ".ttgir";
      writeDumpFile(dir, file.str(), ir::print(module));
    };
  }
  std::string name = k.name;
  return [name, target](const std::string& pass, const ir::Module& module) {
    std::cerr << "// ----- after " << pass << ": " << name << " (" << target << ") -----\n"
              << ir::print(module) << std::flush;
  };
}

void dumpSass(const CompiledKernelImpl& k, GpuBinary& b) {
  if (!dumpWanted("sass")) return;
  try {
    if (!b.sass) b.sass = runtime::disassemble(*b.cubin, runtime::sassTarget(b.target));
    dumpStage("sass", k, b.target.name(), *b.sass);
  } catch (const Error& e) {
    dumpStage("sass", k, b.target.name(), std::string("// unavailable: ") + e.what());
  }
}

}  // namespace tessera::detail
