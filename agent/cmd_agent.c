/* `cuzk agent`: the Kafka proving agent (agent/agent.h), plus configuration checking and
 * printing. Signals: SIGTERM/SIGINT stop gracefully, SIGHUP reloads the configuration file. */
#include "agent/agent.h"
#include "agent/agent_config.h"
#include "agent/cli.h"
#include "agent/config.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static void cuzk__agent_usage(FILE *out) {
  fprintf(
      out,
      "Usage: cuzk agent [--config FILE]\n"
      "       cuzk agent --check-config FILE\n"
      "       cuzk agent --print-config [--config FILE] [--origins]\n"
      "       cuzk agent --print-defaults\n"
      "\n"
      "Runs the proving agent: takes proof jobs from Kafka, proves them, publishes results\n"
      "and telemetry. With no kafka.brokers configured, use `cuzk demo` (embedded cluster).\n"
      "\n"
      "Options:\n"
      "  --config FILE        configuration file (libconfig syntax). Default: $CUZK_CONFIG if\n"
      "                       set, else " CUZK_CONFIG_DEFAULT_PATH
      " if it exists, else the\n"
      "                       built-in defaults\n"
      "  --check-config FILE  validate FILE plus the environment overrides; print \"ok: FILE\"\n"
      "                       or the errors (each naming file:line or the variable)\n"
      "  --print-config       print the effective configuration (defaults, file, environment)\n"
      "                       as libconfig text with every key documented\n"
      "  --origins            with --print-config: note where each value set by the file or\n"
      "                       the environment came from\n"
      "  --print-defaults     print the built-in defaults (the example configuration)\n"
      "  -h, --help           this help\n"
      "\n"
      "Environment: CUZK_<SECTION>_<KEY> overrides a key, e.g. CUZK_KAFKA_BROKERS,\n"
      "CUZK_ENGINE_MEMORY_BUDGET, CUZK_ENGINE_SRS_PRELOAD (lists comma-separated, \"\\,\" for a\n"
      "literal comma; property lists as name=value,name=value). An unknown CUZK_AGENT_*,\n"
      "CUZK_KAFKA_* or CUZK_ENGINE_* variable is an error.\n"
      "Signals: SIGTERM/SIGINT stop gracefully (in-flight jobs get agent.shutdown_grace_s);\n"
      "SIGHUP reloads the file; changes to keys not marked reloadable are refused and the old\n"
      "configuration stays.\n"
      "\n"
      "Exit codes: 0 valid configuration (--check-config, --print-config), 1 runtime failure\n"
      "2 usage or configuration error.\n");
}

static const char *cuzk__default_config_path(void) {
  const char *env = getenv("CUZK_CONFIG");
  if (env && *env) return env;
  if (access(CUZK_CONFIG_DEFAULT_PATH, F_OK) == 0) return CUZK_CONFIG_DEFAULT_PATH;
  return NULL;
}

static volatile sig_atomic_t cuzk__sig_stop, cuzk__sig_hup;
static cuzk_agent_t *volatile cuzk__running;

static void cuzk__on_signal(int sig) {
  if (sig == SIGHUP) {
    cuzk__sig_hup = 1;
  } else {
    cuzk__sig_stop = 1;
    if (cuzk__running) cuzk_agent_stop(cuzk__running);
  }
}

typedef struct {
  cuzk_config_t **cfg;
  const char *path;
} cuzk__tick_ctx_t;

/* Poll thread: applies a pending SIGHUP. */
static bool cuzk__agent_tick(void *ctx, cuzk_agent_t *agent) {
  cuzk__tick_ctx_t *t = ctx;
  if (cuzk__sig_hup) {
    cuzk__sig_hup = 0;
    cuzk_config_t *next = NULL;
    char err[8192];
    if (!t->path) {
      fprintf(stderr, "cuzk agent: SIGHUP ignored: no configuration file to reload\n");
    } else if (cuzk_config_reload(*t->cfg, t->path, &next, err, sizeof err) != CUZK_OK) {
      fprintf(stderr, "cuzk agent: reload of %s refused, keeping the old configuration:\n%s\n",
              t->path, err);
    } else {
      cuzk_agent_apply_log_config(next);
      cuzk_agent_reconfigure(agent, (int)next->agent.status_interval_s,
                             (int)next->agent.shutdown_grace_s,
                             (unsigned)next->engine.admission_reserve_critical);
      fprintf(stderr, "cuzk agent: reloaded %s (engine.timeline_file applies at restart)\n",
              t->path);
      /* the agent borrows strings of the old config only for keys that are not reloadable,
       * and those are equal in the new one; keep the old one alive until exit */
      cuzk_config_free(next);
    }
  }
  return !cuzk__sig_stop;
}

static int cuzk__agent_main(cuzk_config_t **cfgp, const char *path) {
  cuzk_config_t *cfg = *cfgp;
  cuzk_agent_apply_log_config(cfg);
  if (!cfg->kafka.brokers[0]) {
    fprintf(stderr, "cuzk agent: no kafka.brokers configured; `cuzk demo` runs the agent on an "
                    "embedded Kafka cluster\n");
    return CUZK_EXIT_USAGE;
  }
  char err[1024];
  cuzk_agent_engine_conf_t ec;
  if (cuzk_agent_engine_conf_from_config(&ec, cfg, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "cuzk agent: %s\n", err);
    return CUZK_EXIT_USAGE;
  }
  cuzk_agent_engine_t *engine = cuzk_agent_engine_new(&ec, err, sizeof err);
  if (!engine) {
    fprintf(stderr, "cuzk agent: engine: %s\n", err);
    return CUZK_EXIT_FAIL;
  }
  cuzk_agent_conf_t ac;
  cuzk_agent_conf_from_config(&ac, cfg);
  ac.engine = engine;
  cuzk__tick_ctx_t tick = {cfgp, path};
  ac.tick = cuzk__agent_tick;
  ac.tick_ctx = &tick;
  cuzk_agent_t *agent = cuzk_agent_new(&ac, err, sizeof err);
  if (!agent) {
    fprintf(stderr, "cuzk agent: %s\n", err);
    engine->free(engine);
    return CUZK_EXIT_FAIL;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = cuzk__on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  cuzk__running = agent;
  cuzk_err_t e = cuzk_agent_run(agent);
  cuzk__running = NULL;
  engine->free(engine);
  cuzk_agent_free(agent);
  return e == CUZK_OK ? CUZK_EXIT_OK : CUZK_EXIT_FAIL;
}

static int cuzk__agent_run(int argc, char **argv) {
  const char *config = NULL, *check = NULL;
  int print = 0, origins = 0, defaults = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--config") == 0 || strcmp(a, "--check-config") == 0) {
      if (i + 1 >= argc) return cuzk_cli_usage_error("agent", "%s needs a file", a);
      if (strcmp(a, "--config") == 0)
        config = argv[++i];
      else
        check = argv[++i];
    } else if (strncmp(a, "--config=", 9) == 0) {
      config = a + 9;
    } else if (strncmp(a, "--check-config=", 15) == 0) {
      check = a + 15;
    } else if (strcmp(a, "--print-config") == 0) {
      print = 1;
    } else if (strcmp(a, "--origins") == 0) {
      origins = 1;
    } else if (strcmp(a, "--print-defaults") == 0) {
      defaults = 1;
    } else {
      return cuzk_cli_usage_error("agent", "unknown option '%s'", a);
    }
  }
  if ((check != NULL) + print + defaults > 1)
    return cuzk_cli_usage_error("agent",
                                "--check-config, --print-config and --print-defaults exclude "
                                "each other");
  if (check && config)
    return cuzk_cli_usage_error("agent", "--check-config takes the file itself; drop --config");
  if (origins && !print) return cuzk_cli_usage_error("agent", "--origins goes with --print-config");
  if (defaults) {
    if (config) return cuzk_cli_usage_error("agent", "--print-defaults takes no --config");
    cuzk_config_print(stdout, NULL, 0);
    return CUZK_EXIT_OK;
  }

  const char *path = check ? check : config ? config : cuzk__default_config_path();
  cuzk_config_t *cfg = NULL;
  char err[16384];
  if (cuzk_config_load(&cfg, path, (const char *const *)environ, err, sizeof err) != CUZK_OK) {
    fprintf(stderr, "%s\n", err);
    fprintf(stderr, "cuzk agent: invalid configuration%s%s\n", path ? " in " : "",
            path ? path : "");
    return CUZK_EXIT_USAGE;
  }
  int rc;
  if (check) {
    printf("ok: %s\n", check);
    rc = CUZK_EXIT_OK;
  } else if (print) {
    printf("# cuzk %s effective configuration (%s%s)\n", cuzk_version_string(),
           path ? "file " : "built-in defaults", path ? path : "");
    printf("# libconfig syntax; `cuzk agent --help` explains the environment overrides.\n");
    cuzk_config_print(stdout, cfg, origins ? CUZK_CONFIG_PRINT_ORIGINS : 0);
    rc = CUZK_EXIT_OK;
  } else {
    rc = cuzk__agent_main(&cfg, path);
  }
  cuzk_config_free(cfg);
  return rc;
}

const cuzk_cmd_t cuzk_cmd_agent = {"agent",
                                   "run the Kafka proving agent; check or print its config",
                                   cuzk__agent_run, cuzk__agent_usage};
