//===- Process.cpp - Running a toolkit program ----------------------------===//
//
// See Process.h. posix_spawn with the output redirected to a file of the
// scratch directory: no shell, so paths need no quoting, and no pipe to
// drain while waiting.
//
//===----------------------------------------------------------------------===//

#include "runtime/Process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tessera/Error.h"

extern char** environ;

namespace tessera::runtime {

namespace fs = std::filesystem;

ScratchDir::ScratchDir(const std::string& purpose) {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  if (ec) throw Error("no temporary directory for " + purpose + " (TMPDIR): " + ec.message());
  std::string tmpl = (tmp / ("tessera-" + purpose + "-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw Error("cannot create a temporary directory in " + tmp.string() + " for " + purpose +
                ": " + std::strerror(errno));
  path_ = buf.data();
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

int runProgram(const std::vector<std::string>& argv, std::string& output) {
  output.clear();
  ScratchDir dir("run");
  std::string log = dir.file("output.txt");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    output = "cannot start " + argv[0] + ": " + std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      output = "waiting for " + argv[0] + " failed: " + std::strerror(errno);
      return -1;
    }
  }
  std::ifstream in(log, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  output = text.str();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void writeFileOrThrow(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error("cannot write " + path);
}

std::string readFileOrThrow(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tessera::runtime
