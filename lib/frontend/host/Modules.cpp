//===- Modules.cpp - Finding, loading and running user modules ------------===//
//
// A module name resolves as Python's path-based finder does, over the
// Environment's search path in order: `a.b` is DIR/a/b.py, or the package
// DIR/a/b/__init__.py, or a namespace package DIR/a/b/ (a directory without
// __init__.py, an empty module). Parents are imported before their children
// (`import a.b.c` runs a/__init__.py and a/b/__init__.py first) and a child
// becomes an attribute of its parent. A module is run once; an import that
// comes back to a module still running (a circular import) sees its names
// as bound so far, as in Python.
//
// Only modules that an executed import names are read: a package's other
// files are never opened.
//
//===----------------------------------------------------------------------===//

#include <sys/stat.h>

#include "Interp.h"
#include "frontend/python/SourceText.h"
#include "tessera/support/Env.h"

namespace tessera::host {

namespace {

bool isFile(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool isDir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool validName(const std::string& name) {
  if (name.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    std::string part = name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty() || std::isdigit(static_cast<unsigned char>(part[0]))) return false;
    for (char c : part)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && !(c & 0x80)) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

/// The file of module `name`: (path, isPackage); path "" for a namespace
/// package.
std::optional<std::pair<std::string, bool>> Interp::findModuleFile(const std::string& name) const {
  if (!validName(name)) return std::nullopt;
  std::string rel = name;
  for (char& c : rel)
    if (c == '.') c = '/';
  if (auto known = env_.moduleFiles.find(name); known != env_.moduleFiles.end() && isFile(known->second)) {
    const std::string& file = known->second;
    bool package = file.size() >= 12 && file.compare(file.size() - 12, 12, "/__init__.py") == 0;
    return std::make_pair(file, package);
  }
  std::optional<std::pair<std::string, bool>> nsPackage;
  for (const std::string& dir : env_.searchPath) {
    std::string base = (dir.empty() ? std::string(".") : dir) + "/" + rel;
    if (isFile(base + "/__init__.py")) return std::make_pair(base + "/__init__.py", true);
    if (isFile(base + ".py")) return std::make_pair(base + ".py", false);
    if (!nsPackage && isDir(base)) nsPackage = std::make_pair(std::string(), true);
  }
  return nsPackage;
}

ModuleObj* Interp::importUser(const std::string& name, const SourceLoc& at) {
  if (auto it = byName_.find(name); it != byName_.end()) return it->second;
  if ((name == "torch" || name.rfind("torch.", 0) == 0) && !isTorchSourceModule(name)) return nullptr;  // modeled
  // Parents first (but torch's: torch stays modeled, see isTorchSourceModule).
  ModuleObj* parent = nullptr;
  if (size_t dot = name.rfind('.'); dot != std::string::npos && !isTorchSourceModule(name)) {
    parent = importUser(name.substr(0, dot), at);
    if (!parent) return nullptr;
    if (auto it = byName_.find(name); it != byName_.end()) return it->second;  // the parent imported it
  }
  auto found = findModuleFile(name);
  if (!found) return nullptr;
  SourceFileRef source;
  if (!found->first.empty()) {
    std::string text;
    try {
      text = py::readSourceFile(found->first);
    } catch (const Error& e) {
      fatal(at, std::string("cannot read module '") + name + "': " + e.what());
    }
    source = std::make_shared<SourceFile>(found->first, py::pythonSourceText(text, found->first));
  } else {
    source = std::make_shared<SourceFile>("<namespace package " + name + ">", "");
  }
  ModuleObj* m = loadFile(name, found->first, found->second, source);
  if (parent) {
    auto o = std::make_shared<Object>(Kind::Module);
    o->module = m;
    o->s = m->name;
    std::string leaf = name.substr(name.rfind('.') + 1);
    auto [it, fresh] = parent->globals->vars.emplace(leaf, o);
    if (fresh) parent->order.push_back(leaf);
  }
  return m;
}

ModuleObj* Interp::loadFile(const std::string& name, const std::string& path, bool isPackage, SourceFileRef source) {
  auto owned = std::make_unique<ModuleObj>();
  ModuleObj* m = owned.get();
  m->name = name;
  m->path = path;
  m->isPackage = isPackage;
  m->source = source;
  m->ast = py::parseModule(source);  // a syntax error anywhere fails the import, located
  m->globals = std::make_shared<Scope>();
  m->globals->module = m;
  m->globals->isModule = true;
  m->globals->vars["__name__"] = str(name);
  m->globals->vars["__file__"] = str(path);
  modules_.push_back(std::move(owned));
  byName_[name] = m;
  execModule(*m);
  return m;
}

ModuleObj* Interp::runEntry(SourceFileRef source, const std::string& path, const std::string& name, bool isPackage) {
  if (auto it = byName_.find(name); it != byName_.end() && !name.empty()) return it->second;
  // A dotted entry (a file inside a package) imports its parents first, as
  // `python -m pkg.mod` would.
  if (size_t dot = name.rfind('.'); dot != std::string::npos) importUser(name.substr(0, dot), SourceLoc{source.get(), 1, 1});
  if (auto it = byName_.find(name); it != byName_.end()) return it->second;
  return loadFile(name, path, isPackage, std::move(source));
}

}  // namespace tessera::host
