#include "tests/support/testlib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t cuzk_test_seed(void) {
  static int done;
  static uint64_t seed;
  if (!done) {
    const char *e = getenv("CUZK_TEST_SEED");
    if (e && *e) {
      seed = strtoull(e, NULL, 0);
    } else {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      seed =
          ((uint64_t)ts.tv_sec * 1000000007ULL) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    }
    fprintf(stderr, "seed=%llu (set CUZK_TEST_SEED to repeat)\n", (unsigned long long)seed);
    done = 1;
  }
  return seed;
}

void cuzk_test_rng_init(cuzk_test_rng_t *r, uint64_t seed) {
  r->s = seed;
}

uint64_t cuzk_test_rng_next(cuzk_test_rng_t *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void cuzk_test_rng_bytes(cuzk_test_rng_t *r, void *out, size_t n) {
  unsigned char *p = out;
  while (n) {
    uint64_t v = cuzk_test_rng_next(r);
    size_t k = n < 8 ? n : 8;
    memcpy(p, &v, k);
    p += k;
    n -= k;
  }
}

static int cuzk__is_dir(const char *p) {
  struct stat st;
  return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *cuzk_test_vectors_dir(void) {
  const char *v = getenv("CUZK_VECTORS");
  return cuzk__is_dir(v) ? v : NULL;
}

const char *cuzk_test_vector_path(char *buf, size_t n, const char *rel) {
  const char *d = cuzk_test_vectors_dir();
  if (!d) {
    fprintf(stderr,
            "SKIP: test vectors not found (set CUZK_VECTORS to ../shared/vectors); needed: %s\n",
            rel);
    return NULL;
  }
  snprintf(buf, n, "%s/%s", d, rel);
  if (access(buf, R_OK) != 0) {
    fprintf(stderr, "SKIP: test vector %s is absent\n", buf);
    return NULL;
  }
  return buf;
}

const char *cuzk_test_oracles_dir(void) {
  static char buf[4096];
  const char *o = getenv("CUZK_ORACLES");
  if (!o) return NULL;
  snprintf(buf, sizeof buf, "%s/node_modules", o);
  return cuzk__is_dir(buf) ? o : NULL;
}

char *cuzk_test_run_cmd(const char *cmd, const char *input, int *status) {
  char inpath[] = "/tmp/cuzk-test-in-XXXXXX";
  int fd = mkstemp(inpath);
  if (fd < 0) return NULL;
  size_t len = input ? strlen(input) : 0, off = 0;
  while (off < len) {
    ssize_t w = write(fd, input + off, len - off);
    if (w <= 0) {
      close(fd);
      unlink(inpath);
      return NULL;
    }
    off += (size_t)w;
  }
  close(fd);
  size_t clen = strlen(cmd) + strlen(inpath) + 16;
  char *full = malloc(clen);
  snprintf(full, clen, "%s < %s", cmd, inpath);
  FILE *p = popen(full, "r");
  free(full);
  if (!p) {
    unlink(inpath);
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *out = malloc(cap);
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap *= 2;
      out = realloc(out, cap);
    }
    size_t r = fread(out + n, 1, 4096, p);
    n += r;
    if (r == 0) break;
  }
  out[n] = '\0';
  int st = pclose(p);
  unlink(inpath);
  if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

char *cuzk_test_run_node(const char *script, const char *input) {
  const char *o = cuzk_test_oracles_dir();
  if (!o) return NULL;
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "node '%s/%s'", o, script);
  int st = -1;
  char *out = cuzk_test_run_cmd(cmd, input, &st);
  if (out && st != 0) {
    fprintf(stderr, "node %s exited %d: %s\n", script, st, out);
    free(out);
    return NULL;
  }
  return out;
}
