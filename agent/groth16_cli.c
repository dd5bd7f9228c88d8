#include "agent/groth16_cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/cli.h"
#include "core/util/file.h"

int cuzk_g16_opt(int argc, char **argv, int *i, const char *name, const char **val) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return 0;
  if (a[n] == '=') {
    *val = a + n + 1;
    return 1;
  }
  if (a[n] != 0) return 0;
  if (*i + 1 >= argc) return -1;
  *val = argv[++*i];
  return 1;
}

bool cuzk_g16_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (!s || !*s || *s == '-' || *s == '+') return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

int cuzk_g16_circuit_arg(const char *cmd, int argc, char **argv, int *i,
                         cuzk_g16_circuit_args_t *a) {
  static const struct {
    const char *name;
    uint64_t lo, hi;
  } nums[3] = {{"--log-n", 2, 30}, {"--num-public", 0, 1u << 20}, {"--seed", 0, UINT64_MAX}};
  const char *v;
  int m = cuzk_g16_opt(argc, argv, i, "--circuit", &v);
  if (m < 0) return cuzk_cli_usage_error(cmd, "--circuit needs a value") + 10;
  if (m > 0) {
    a->circuit = cuzk_circuit_find(v);
    if (!a->circuit) {
      fprintf(stderr, "cuzk %s: unknown circuit '%s'; known:", cmd, v);
      for (size_t k = 0; cuzk_circuits[k]; k++) fprintf(stderr, " %s", cuzk_circuits[k]->name);
      fprintf(stderr, "\n");
      return CUZK_EXIT_USAGE + 10;
    }
    return 1;
  }
  for (int k = 0; k < 3; k++) {
    m = cuzk_g16_opt(argc, argv, i, nums[k].name, &v);
    if (m < 0) return cuzk_cli_usage_error(cmd, "%s needs a value", nums[k].name) + 10;
    if (m == 0) continue;
    uint64_t x;
    if (!cuzk_g16_parse_u64(v, nums[k].lo, nums[k].hi, &x))
      return cuzk_cli_usage_error(cmd, "%s: '%s' is not an integer in %llu..%llu", nums[k].name, v,
                                  (unsigned long long)nums[k].lo, (unsigned long long)nums[k].hi) +
             10;
    if (k == 0) a->opts.log_n = (unsigned)x, a->have_log_n = true;
    if (k == 1) a->opts.num_public = (uint32_t)x, a->have_public = true;
    if (k == 2) a->opts.seed = x, a->have_seed = true;
    return 1;
  }
  return 0;
}

void cuzk_g16_circuit_finish(cuzk_g16_circuit_args_t *a) {
  if (!a->circuit) return;
  if (!a->have_log_n) a->opts.log_n = a->circuit->defaults.log_n;
  if (!a->have_public) a->opts.num_public = a->circuit->defaults.num_public;
  if (!a->have_seed) a->opts.seed = a->circuit->defaults.seed;
}

bool cuzk_g16_resolve(char *buf, size_t size, const char *params, const char *ext,
                      const cuzk_g16_circuit_args_t *ca, const char *cmd) {
  struct stat st;
  if (stat(params, &st) != 0) {
    fprintf(stderr, "cuzk %s: %s: %s\n", cmd, params, strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(buf, size, "%s", params);
    return true;
  }
  if (ca && ca->circuit) {
    char stem[200];
    cuzk_circuit_file_stem(stem, sizeof stem, ca->circuit, &ca->opts);
    snprintf(buf, size, "%s/%s%s", params, stem, ext);
    if (stat(buf, &st) != 0) {
      fprintf(stderr, "cuzk %s: %s: %s (run 'cuzk setup' with the same circuit options)\n", cmd,
              buf, strerror(errno));
      return false;
    }
    return true;
  }
  DIR *d = opendir(params);
  if (!d) {
    fprintf(stderr, "cuzk %s: %s: %s\n", cmd, params, strerror(errno));
    return false;
  }
  int found = 0;
  struct dirent *e;
  size_t el = strlen(ext);
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n > el && strcmp(e->d_name + n - el, ext) == 0) {
      if (found++ == 0) snprintf(buf, size, "%s/%s", params, e->d_name);
    }
  }
  closedir(d);
  if (found != 1) {
    fprintf(stderr, "cuzk %s: %s holds %d %s files; name the circuit (--circuit ...) or the file\n",
            cmd, params, found, ext);
    return false;
  }
  return true;
}

bool cuzk_g16_write_text(const char *path, const char *text, const char *cmd) {
  char err[512];
  if (cuzk_file_write_atomic(path, text, strlen(text), err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk %s: %s\n", cmd, err);
    return false;
  }
  return true;
}
