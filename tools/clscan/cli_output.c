/*
 * The clscan program's output files. A regular (or new) file named as output is replaced
 * atomically: everything is written to a temporary file in the same directory, which is
 * renamed over the target only when writing succeeded; on failure the temporary file is
 * removed and the target stays as it was. "-" is standard output; devices and pipes are
 * written in place.
 */
/* realpath() is an X/Open extension of POSIX. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Returns the permissions a new file gets: 0666 less the umask. */
static mode_t new_file_mode(void) {
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

/* Creates the temporary file next to the real target of `path` (symbolic links followed). */
static int open_temp(cli_output *o, const char *path, const struct stat *existing) {
  o->target = existing ? realpath(path, NULL) : strdup(path);
  if (!o->target)
    return 0;
  const char *slash = strrchr(o->target, '/');
  int dir_len = slash ? (int)(slash - o->target) + 1 : 0;
  size_t cap = strlen(o->target) + 32;
  o->tmp = malloc(cap);
  if (!o->tmp)
    return 0;
  snprintf(o->tmp, cap, "%.*s.clscan-XXXXXX", dir_len, o->target);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    int err = errno;
    free(o->tmp);
    o->tmp = NULL;
    errno = err;
    return 0;
  }
  // The result keeps the mode of the file it replaces, or gets a new file's.
  fchmod(fd, existing ? existing->st_mode & 07777 : new_file_mode());
  o->f = fdopen(fd, "wb");
  if (!o->f)
    close(fd);
  return o->f != NULL;
}

int cli_output_open(cli_output *o, const char *path) {
  memset(o, 0, sizeof *o);
  o->name = path && strcmp(path, "-") != 0 ? path : "standard output";
  if (!path || strcmp(path, "-") == 0) {
    o->f = stdout;
    return 1;
  }
  struct stat st;
  int exists = stat(path, &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    // Devices, pipes and the like cannot be replaced; they are written in place.
    o->f = fopen(path, "wb");
  } else if (!open_temp(o, path, exists ? &st : NULL)) {
    cli_error("cannot create a temporary file for '%s': %s", path, strerror(errno));
    if (o->tmp)
      unlink(o->tmp);
    free(o->tmp);
    free(o->target);
    return 0;
  }
  if (!o->f)
    cli_error("cannot open '%s' for writing: %s", path, strerror(errno));
  return o->f != NULL;
}

void cli_output_abort(cli_output *o) {
  if (o->f && o->f != stdout)
    fclose(o->f);
  if (o->tmp)
    unlink(o->tmp);
  free(o->tmp);
  free(o->target);
  o->f = NULL;
  o->tmp = o->target = NULL;
}

int cli_output_commit(cli_output *o) {
  int ok = fflush(o->f) == 0 && !ferror(o->f);
  if (o->f != stdout) {
    ok = fclose(o->f) == 0 && ok;
    o->f = NULL;
  }
  if (ok && o->tmp)
    ok = rename(o->tmp, o->target) == 0;
  if (!ok) {
    cli_error("cannot write %s: %s", o->name, strerror(errno));
    cli_output_abort(o);
    return 0;
  }
  free(o->tmp);
  free(o->target);
  return 1;
}
