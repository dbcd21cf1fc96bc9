/*
 * clscan tools: what ptx_replay.cu and sort_replay.cu share: reading a dump of cl_dump.c whole.
 */
#ifndef CLSCAN_TOOLS_REPLAY_FILE_H_
#define CLSCAN_TOOLS_REPLAY_FILE_H_

#include <cstdio>
#include <cstdlib>
#include <string>

/* The bytes of the file at path; on failure prints "tool: cannot read path" and exits with 2. */
static inline std::string replay_read_file(const char *tool, const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "%s: cannot read %s\n", tool, path.c_str());
    std::exit(2);
  }
  std::string s;
  char buf[65536];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0)
    s.append(buf, got);
  std::fclose(f);
  return s;
}

#endif /* CLSCAN_TOOLS_REPLAY_FILE_H_ */
