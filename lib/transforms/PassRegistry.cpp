//===- PassRegistry.cpp - The table of Tile IR passes --------------------===//
//
// The one list of passes (STYLE.md §3): name, one-sentence summary, options
// with their defaults, factory. runPasses() parses a pipeline spec such as
// "inline,canonicalize{fold=false},cse", builds each pass with its options
// merged over the defaults, and runs the verifier after every pass so a
// broken rewrite is reported by the pass that made it. registerPasses()
// appends the tables of higher layers (lib/gpu) without this layer
// depending on them.
//
//===----------------------------------------------------------------------===//

#include <cassert>

#include "tessera/Error.h"
#include "transforms/PassDetail.h"

namespace tessera::transforms {

namespace {

std::vector<PassInfo>& mutableRegistry() {
  static std::vector<PassInfo> registry = {
      {"inline",
       "Inlines tt.call of functions of the module (unless noinline) and removes functions "
       "that are no longer called.",
       {{"remove-dead-functions", "true"}, {"noinline-too", "false"},
        {"max-ops", "0"}},
       createInlinerPass},
      {"canonicalize",
       "Folds constant expressions, applies algebraic identities and simplifies scf.if/scf.for "
       "with constant conditions or empty trip counts.",
       {{"fold", "true"}, {"regions", "true"}, {"max-rewrites", "1000000"}},
       createCanonicalizePass},
      {"cse",
       "Merges side-effect-free ops that compute the same value, scoped by region dominance.",
       {},
       createCSEPass},
      {"dce",
       "Removes side-effect-free ops whose results are unused, and dead results and iteration "
       "arguments of scf.for/scf.if.",
       {},
       createDCEPass},
      {"licm",
       "Hoists side-effect-free, loop-invariant ops out of scf.for and scf.while bodies.",
       {},
       createLICMPass},
  };
  return registry;
}

}  // namespace

const std::vector<PassInfo>& passRegistry() { return mutableRegistry(); }

void registerPasses(const std::vector<PassInfo>& passes) {
  for (const PassInfo& info : passes) {
    assert(info.create && "a registered pass needs a factory");
    if (const PassInfo* known = findPass(info.name)) {
      if (known->summary == info.summary) continue;
      throw Error("cannot register pass '" + info.name + "': the name is taken by another pass");
    }
    mutableRegistry().push_back(info);
  }
}

const PassInfo* findPass(std::string_view name) {
  for (const PassInfo& info : passRegistry())
    if (info.name == name) return &info;
  return nullptr;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::string knownPasses(const std::vector<PassInfo>* extra) {
  std::string names;
  if (extra)
    for (const PassInfo& info : *extra) names += (names.empty() ? "" : ", ") + info.name;
  for (const PassInfo& info : passRegistry()) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

const PassInfo* findPassIn(std::string_view name, const std::vector<PassInfo>* extra) {
  if (extra)
    for (const PassInfo& info : *extra)
      if (info.name == name) return &info;
  return findPass(name);
}

/// One element of a pipeline spec: "name" or "name{key=value,key=value}".
struct PassSpec {
  const PassInfo* info;
  PassOptions options;
};

PassSpec parseOne(std::string_view text, const std::vector<PassInfo>* extra) {
  text = trim(text);
  size_t brace = text.find('{');
  std::string_view name = trim(text.substr(0, brace));
  const PassInfo* info = findPassIn(name, extra);
  if (!info)
    throw Error("unknown pass '" + std::string(name) + "' (known passes: " + knownPasses(extra) + ")");
  PassSpec spec{info, info->defaultOptions};
  if (brace == std::string_view::npos) return spec;
  if (text.back() != '}')
    throw Error("pass '" + std::string(name) + "': expected '}' at the end of the options");
  std::string_view body = text.substr(brace + 1, text.size() - brace - 2);
  while (!trim(body).empty()) {
    size_t comma = body.find(',');
    std::string_view item = trim(body.substr(0, comma));
    body = comma == std::string_view::npos ? std::string_view() : body.substr(comma + 1);
    size_t eq = item.find('=');
    std::string key(trim(item.substr(0, eq)));
    if (eq == std::string_view::npos || key.empty())
      throw Error("pass '" + std::string(name) + "': expected key=value, got '" + std::string(item) + "'");
    if (!info->defaultOptions.count(key)) {
      std::string known;
      for (const auto& [k, v] : info->defaultOptions) known += (known.empty() ? "" : ", ") + k;
      throw Error("pass '" + std::string(name) + "' has no option '" + key + "'" +
                  (known.empty() ? " (it takes none)" : " (options: " + known + ")"));
    }
    spec.options[key] = std::string(trim(item.substr(eq + 1)));
  }
  return spec;
}

/// Splits at top-level commas (commas inside {...} separate options).
std::vector<PassSpec> parsePipeline(std::string_view spec, const std::vector<PassInfo>* extra) {
  std::vector<PassSpec> passes;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= spec.size(); ++i) {
    if (i < spec.size() && spec[i] == '{') ++depth;
    if (i < spec.size() && spec[i] == '}') --depth;
    if (i < spec.size() && (spec[i] != ',' || depth > 0)) continue;
    std::string_view item = trim(spec.substr(start, i - start));
    start = i + 1;
    if (item.empty()) {
      if (i < spec.size()) throw Error("empty pass name in pipeline '" + std::string(spec) + "'");
      continue;
    }
    passes.push_back(parseOne(item, extra));
  }
  return passes;
}

}  // namespace

void runPasses(ir::Module& module, std::string_view spec) { runPasses(module, spec, PassRunOptions{}); }

void runPasses(ir::Module& module, std::string_view spec, const PassRunOptions& run) {
  // Parse everything first, so a typo in the third pass fails before the
  // first one has changed anything.
  std::vector<PassSpec> passes = parsePipeline(spec, run.extraPasses);
  for (const PassSpec& p : passes) {
    std::unique_ptr<Pass> pass = p.info->create(p.options);
    pass->run(module);
    ir::verifyOrThrow(module, p.info->name);
    if (run.afterPass) run.afterPass(p.info->name, module);
  }
}

void runTileIRPipeline(ir::Module& module) {
  runPasses(module, "inline,canonicalize,cse,licm,dce");
}

}  // namespace tessera::transforms
