/* The HTML report: one document, inline CSS and SVG, nothing fetched. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/jobspec.h"
#include "agent/telemetry/telemetry.h"

#define CUZK__MAX_BINS 200000
#define CUZK__PLOT_W 1000
#define CUZK__H2D_BUCKETS 120

static const char *const cuzk__phase_name[CUZK_TPHASE__COUNT] = {"queued/budget", "synthesis",
                                                                 "GPU wait", "GPU", "finish"};
static const char *const cuzk__phase_color[CUZK_TPHASE__COUNT] = {"#c7c7c7", "#4e79a7", "#f28e2b",
                                                                  "#59a14f", "#b07aa1"};
static const char *const cuzk__type_name[] = {"WINNING_POST", "WINDOW_POST", "SNAP_DEALS",
                                              "POREP_C2"};

void cuzk_telemetry_html_escape(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
    switch (*p) {
      case '&':
        fputs("&amp;", f);
        break;
      case '<':
        fputs("&lt;", f);
        break;
      case '>':
        fputs("&gt;", f);
        break;
      case '"':
        fputs("&quot;", f);
        break;
      case '\'':
        fputs("&#39;", f);
        break;
      default:
        if (*p < 0x20 && *p != '\t')
          fputs("&#xFFFD;", f);
        else
          fputc(*p, f);
    }
  }
}

static void cuzk__phases(const cuzk_partition_timing_t *r, int64_t b[CUZK_TPHASE__COUNT + 1]) {
  b[0] = r->enqueued_us;
  b[1] = r->synth_start_us;
  b[2] = r->synth_end_us;
  b[3] = r->gpu_start_us;
  b[4] = r->gpu_end_us;
  b[5] = r->finish_end_us;
  for (int i = 1; i <= CUZK_TPHASE__COUNT; i++)
    if (b[i] < b[i - 1]) b[i] = b[i - 1];
}

static int64_t cuzk__overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
  int64_t s = a0 > b0 ? a0 : b0, e = a1 < b1 ? a1 : b1;
  return e > s ? e - s : 0;
}

static int64_t cuzk__clip64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

static int cuzk__cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static void cuzk__gpu_label(FILE *f, const cuzk_telemetry_gpu_t *g) {
  cuzk_telemetry_html_escape(f, g->agent_id);
  if (g->gpu < 0)
    fputs(" / cpu", f);
  else
    fprintf(f, " / gpu %d", (int)g->gpu);
}

typedef struct {
  int64_t key;
  size_t idx;
} cuzk__key_t;

static int cuzk__cmp_key(const void *a, const void *b) {
  const cuzk__key_t *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* One timeline per GPU: lanes of partitions (greedy packing), each bin painted with the phase
 * that covers most of it; above them a busy row whose opacity is the bin's GPU-busy fraction. */
static void cuzk__timeline(FILE *f, const cuzk_telemetry_stats_t *st, const cuzk_telemetry_gpu_t *g,
                           const cuzk_partition_timing_t *recs, size_t n, int64_t res,
                           size_t nbins) {
  int64_t *lane_end = calloc(n, sizeof *lane_end);
  size_t *lane_of = calloc(n, sizeof *lane_of);
  size_t *order = calloc(n, sizeof *order);
  if (!lane_end || !lane_of || !order) goto out;
  cuzk__key_t *keys = calloc(n, sizeof *keys);
  if (!keys) goto out;
  for (size_t i = 0; i < n; i++) keys[i] = (cuzk__key_t){recs[i].enqueued_us, i};
  qsort(keys, n, sizeof *keys, cuzk__cmp_key);
  for (size_t i = 0; i < n; i++) order[i] = keys[i].idx;
  free(keys);
  size_t lanes = 0;
  for (size_t oi = 0; oi < n; oi++) {
    const cuzk_partition_timing_t *r = &recs[order[oi]];
    size_t l = 0;
    while (l < lanes && lane_end[l] > r->enqueued_us) l++;
    if (l == lanes) lanes++;
    lane_end[l] = r->finish_end_us;
    lane_of[order[oi]] = l;
  }
  double bw = (double)CUZK__PLOT_W / (double)nbins;
  if (bw > 100) bw = 100;
  if (bw < 1) bw = 1;
  const int lh = 14, top = 30, left = 4;
  double w = bw * (double)nbins;
  int h = top + (int)lanes * lh + 24;
  fprintf(f, "<h3>");
  cuzk__gpu_label(f, g);
  fprintf(
      f,
      " &mdash; busy %.1f%%</h3>\n<div class=\"scroll\"><svg class=\"timeline\" "
      "xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%d\">\n",
      st->t1_us > st->t0_us ? 100.0 * (double)g->busy_us / (double)(st->t1_us - st->t0_us) : 0.0,
      w + 2 * left < 320 ? 320 : w + 2 * left, h);
  fprintf(f, "<text x=\"%d\" y=\"11\" class=\"lbl\">GPU busy per %.0f ms bin</text>\n", left,
          (double)res / 1e3);
  /* busy row */
  for (size_t b = 0; b < nbins; b++) {
    int64_t b0 = st->t0_us + (int64_t)b * res, b1 = b0 + res, busy = 0, cursor = b0;
    for (size_t i = 0; i < n; i++) {
      int64_t s = recs[i].gpu_start_us > cursor ? recs[i].gpu_start_us : cursor;
      int64_t o = cuzk__overlap(s, recs[i].gpu_end_us, b0, b1);
      if (o > 0) {
        busy += o;
        cursor = s + o;
      }
    }
    if (busy > 0)
      fprintf(f,
              "<rect x=\"%.1f\" y=\"14\" width=\"%.1f\" height=\"12\" fill=\"#59a14f\" "
              "fill-opacity=\"%.2f\"/>\n",
              left + bw * (double)b, bw,
              (double)busy / (double)res > 1 ? 1.0 : (double)busy / (double)res);
  }
  for (size_t i = 0; i < n; i++) {
    int64_t ph[CUZK_TPHASE__COUNT + 1];
    cuzk__phases(&recs[i], ph);
    size_t b0 = (size_t)((ph[0] - st->t0_us) / res), b1 = (size_t)((ph[5] - st->t0_us) / res);
    if (b1 >= nbins) b1 = nbins - 1;
    double y = top + (double)lane_of[i] * lh;
    fprintf(f, "<g><title>job ");
    cuzk_telemetry_html_escape(f, recs[i].job_id);
    fprintf(f,
            " partition %d (%s): queued %.1f ms, synth %.1f ms, GPU wait %.1f ms, GPU %.1f ms, "
            "finish %.1f ms, pinned %s</title>\n",
            (int)recs[i].partition,
            recs[i].proof_type < 4 ? cuzk__type_name[recs[i].proof_type] : "?",
            (ph[1] - ph[0]) / 1e3, (ph[2] - ph[1]) / 1e3, (ph[3] - ph[2]) / 1e3,
            (ph[4] - ph[3]) / 1e3, (ph[5] - ph[4]) / 1e3, recs[i].is_pinned ? "yes" : "no");
    int run_phase = -1;
    size_t run_start = 0;
    for (size_t b = b0; b <= b1 + 1; b++) {
      int best = -1;
      if (b <= b1) {
        int64_t lo = st->t0_us + (int64_t)b * res, hi = lo + res, best_o = 0;
        for (int p = 0; p < CUZK_TPHASE__COUNT; p++) {
          int64_t o = cuzk__overlap(ph[p], ph[p + 1], lo, hi);
          if (o > best_o) {
            best_o = o;
            best = p;
          }
        }
      }
      if (best != run_phase) {
        if (run_phase >= 0)
          fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
                  left + bw * (double)run_start, y, bw * (double)(b - run_start), lh - 2,
                  cuzk__phase_color[run_phase]);
        run_phase = best;
        run_start = b;
      }
    }
    fprintf(f, "</g>\n");
  }
  /* time axis */
  double span_s = (double)(st->t1_us - st->t0_us) / 1e6;
  static const double steps[] = {0.2, 0.5, 1,   2,   5,    10,   15,  30,
                                 60,  120, 300, 600, 1800, 3600, 7200};
  double step = steps[sizeof steps / sizeof steps[0] - 1];
  for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++)
    if (span_s / steps[k] <= 12 && steps[k] * 1e6 / (double)res * bw >= 40) {
      step = steps[k];
      break;
    }
  for (double t = 0; t <= span_s + 1e-9; t += step) {
    double x = left + t * 1e6 / (double)res * bw;
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>"
            "<text x=\"%.1f\" y=\"%d\" class=\"lbl\">%gs</text>\n",
            x, h - 22, x, h - 16, x + 2, h - 6, t);
  }
  fprintf(f, "</svg></div>\n");
out:
  free(lane_end);
  free(lane_of);
  free(order);
}

static void cuzk__legend(FILE *f) {
  fprintf(f, "<p class=\"legend\">");
  for (int p = 0; p < CUZK_TPHASE__COUNT; p++)
    fprintf(f,
            "<span><svg width=\"12\" height=\"12\"><rect width=\"12\" height=\"12\" "
            "fill=\"%s\"/></svg> %s</span> ",
            cuzk__phase_color[p], cuzk__phase_name[p]);
  fprintf(f, "</p>\n");
}

/* Bar chart of idle gaps per GPU in fixed buckets. */
static void cuzk__gap_hist(FILE *f, const cuzk_telemetry_stats_t *st) {
  static const int64_t edges[] = {0, 10000, 50000, 200000, 1000000, 5000000, INT64_MAX};
  static const char *const names[] = {"&lt;10 ms",     "10&ndash;50 ms", "50&ndash;200 ms",
                                      "0.2&ndash;1 s", "1&ndash;5 s",    "&ge;5 s"};
  enum { NB = 6 };
  fprintf(f,
          "<h2>Idle gaps</h2>\n<p>Gaps between GPU kernel intervals per GPU (window edges "
          "included): count per bucket, total idle time in parentheses.</p>\n");
  for (size_t gi = 0; gi < st->n_gpus; gi++) {
    const cuzk_telemetry_gpu_t *g = &st->gpus[gi];
    size_t cnt[NB] = {0};
    int64_t tot[NB] = {0};
    size_t maxc = 1;
    for (size_t k = 0; k < g->n_gaps; k++)
      for (int b = 0; b < NB; b++)
        if (g->gaps_us[k] >= edges[b] && g->gaps_us[k] < edges[b + 1]) {
          cnt[b]++;
          tot[b] += g->gaps_us[k];
        }
    for (int b = 0; b < NB; b++)
      if (cnt[b] > maxc) maxc = cnt[b];
    fprintf(f, "<h3>");
    cuzk__gpu_label(f, g);
    fprintf(f,
            "</h3>\n<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\">\n",
            NB * 120 + 10, 150);
    for (int b = 0; b < NB; b++) {
      double bh = 100.0 * (double)cnt[b] / (double)maxc;
      fprintf(f,
              "<rect x=\"%d\" y=\"%.1f\" width=\"100\" height=\"%.1f\" fill=\"#e15759\"/>"
              "<text x=\"%d\" y=\"%.1f\" class=\"lbl\">%zu (%.2f s)</text>"
              "<text x=\"%d\" y=\"140\" class=\"lbl\">%s</text>\n",
              10 + b * 120, 115 - bh, bh, 10 + b * 120, 111 - bh, cnt[b], (double)tot[b] / 1e6,
              10 + b * 120, names[b]);
    }
    fprintf(f, "</svg>\n");
  }
}

/* Scatter/line plot: points (x_us, y) per series on a shared time axis. */
typedef struct {
  int64_t t;
  double y;
  int series;
} cuzk__pt_t;

static void cuzk__plot(FILE *f, const cuzk_telemetry_stats_t *st, const cuzk__pt_t *pts, size_t n,
                       int nseries, const char *const *series_names, const char *const *colors,
                       const char *yunit, int lines) {
  double ymax = 0;
  for (size_t i = 0; i < n; i++)
    if (pts[i].y > ymax) ymax = pts[i].y;
  if (ymax <= 0) ymax = 1;
  const int W = 900, H = 200, L = 60, T = 10;
  double span = (double)(st->t1_us - st->t0_us);
  if (span <= 0) span = 1;
  fprintf(f,
          "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n",
          W + L + 20, H + T + 40 + 14 * ((nseries - 1) / 4));
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#bbb\"/>\n",
          L, T, W, H);
  fprintf(f,
          "<text x=\"2\" y=\"%d\" class=\"lbl\">%.3g %s</text><text x=\"2\" y=\"%d\" "
          "class=\"lbl\">0</text>\n",
          T + 10, ymax, yunit, T + H);
  fprintf(f,
          "<text x=\"%d\" y=\"%d\" class=\"lbl\">0 s</text><text x=\"%d\" y=\"%d\" "
          "class=\"lbl\">%.1f s</text>\n",
          L, T + H + 14, L + W - 40, T + H + 14, span / 1e6);
  for (int s = 0; s < nseries; s++) {
    if (lines) fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"", colors[s % 10]);
    for (size_t i = 0; i < n; i++) {
      if (pts[i].series != s) continue;
      double x = L + W * (double)(pts[i].t - st->t0_us) / span, y = T + H - H * pts[i].y / ymax;
      if (lines)
        fprintf(f, "%.1f,%.1f ", x, y);
      else
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", x, y, colors[s % 10]);
    }
    if (lines) fprintf(f, "\"/>\n");
    fprintf(f, "<text x=\"%d\" y=\"%d\" class=\"lbl\" fill=\"%s\">", L + 10 + 220 * (s % 4),
            T + H + 30 + 14 * (s / 4), colors[s % 10]);
    cuzk_telemetry_html_escape(f, series_names[s]);
    fprintf(f, "</text>\n");
  }
  fprintf(f, "</svg>\n");
}

static int cuzk__cmp_pt(const void *a, const void *b) {
  const cuzk__pt_t *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->series - y->series;
}

static const char *const cuzk__colors[10] = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1",
                                             "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"};

cuzk_err_t cuzk_telemetry_report_html(FILE *f, cuzk_telemetry_set_t *set,
                                      const cuzk_telemetry_report_opts_t *opts, char *errstr,
                                      size_t errstr_size) {
  int64_t res = opts && opts->resolution_us > 0 ? opts->resolution_us : 200000;
  const char *title = opts && opts->title ? opts->title : "cuzk telemetry";
  cuzk_telemetry_stats_t st;
  if (cuzk_telemetry_stats(&st, set) != CUZK_OK) {
    snprintf(errstr, errstr_size, "out of memory");
    return CUZK_ERR_NOMEM;
  }
  size_t nbins = st.t1_us > st.t0_us ? (size_t)((st.t1_us - st.t0_us + res - 1) / res) : 1;
  if (nbins > CUZK__MAX_BINS) {
    snprintf(errstr, errstr_size,
             "the window (%.1f s) needs %zu bins at %.0f ms resolution: use a coarser "
             "--resolution or narrow --since/--until",
             (double)(st.t1_us - st.t0_us) / 1e6, nbins, (double)res / 1e3);
    cuzk_telemetry_stats_free(&st);
    return CUZK_ERR_INVALID_ARG;
  }
  double window_s = (double)(st.t1_us - st.t0_us) / 1e6;
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
  cuzk_telemetry_html_escape(f, title);
  fprintf(f,
          "</title>\n<style>\nbody{font-family:sans-serif;margin:16px;color:#222}"
          "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px "
          "8px;text-align:right}th{background:#eee}td.l,th.l{text-align:left}"
          ".scroll{overflow-x:auto;max-width:100%%}.lbl{font-size:10px;font-family:sans-serif}"
          ".legend span{margin-right:14px}h3{margin:14px 0 4px;font-size:14px}\n</style>"
          "</head>\n<body>\n<h1>");
  cuzk_telemetry_html_escape(f, title);
  fprintf(f,
          "</h1>\n<p>%zu partition records, %zu GPU(s), window %.3f s "
          "(earliest enqueue to latest finish), timeline resolution %.0f ms.</p>\n",
          set->n, st.n_gpus, window_s, (double)res / 1e3);
  /* summary */
  fprintf(f,
          "<h2>Summary</h2>\n<table id=\"summary\"><tr><th class=\"l\">agent</th><th>gpu</th>"
          "<th>jobs</th><th>partitions</th><th>busy %%</th><th>busy s</th><th>mean synth "
          "ms</th><th>mean GPU ms</th><th>pinned %%</th><th>H2D GB</th><th>H2D GB/s</th></tr>\n");
  for (size_t gi = 0; gi < st.n_gpus; gi++) {
    const cuzk_telemetry_gpu_t *g = &st.gpus[gi];
    double busy =
        st.t1_us > st.t0_us ? 100.0 * (double)g->busy_us / (double)(st.t1_us - st.t0_us) : 0;
    fprintf(f, "<tr class=\"gpu\"><td class=\"l\">");
    cuzk_telemetry_html_escape(f, g->agent_id);
    fprintf(f,
            "</td><td>%d</td><td>%zu</td><td>%zu</td><td class=\"busy\">%.2f</td><td>%.3f</td>"
            "<td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.3f</td><td>%.2f</td></tr>\n",
            (int)g->gpu, g->jobs, g->partitions, busy, (double)g->busy_us / 1e6,
            (double)g->synth_us / 1e3 / (double)g->partitions,
            (double)g->gpu_us / 1e3 / (double)g->partitions,
            100.0 * (double)g->pinned / (double)g->partitions, (double)g->h2d_bytes / 1e9,
            g->h2d_us > 0 ? (double)g->h2d_bytes / (double)g->h2d_us / 1e3 : 0.0);
  }
  fprintf(f, "</table>\n");
  /* latency percentiles per proof type */
  fprintf(f,
          "<h2>Partition latency by proof type</h2>\n<p>Latency = finish_end &minus; enqueued "
          "of each partition; nearest-rank percentiles.</p>\n<table id=\"latency\"><tr><th "
          "class=\"l\">proof type</th><th>partitions</th><th>p50 ms</th><th>p90 ms</th><th>p99 "
          "ms</th><th>max ms</th></tr>\n");
  int64_t *lat = calloc(set->n ? set->n : 1, sizeof *lat);
  for (int t = 0; t < 4 && lat; t++) {
    size_t m = 0;
    for (size_t i = 0; i < set->n; i++)
      if ((int)set->recs[i].proof_type == t)
        lat[m++] = set->recs[i].finish_end_us - set->recs[i].enqueued_us;
    if (!m) continue;
    qsort(lat, m, sizeof *lat, cuzk__cmp_i64);
    fprintf(f,
            "<tr class=\"lat\"><td class=\"l\">%s</td><td>%zu</td><td>%.3f</td><td>%.3f</td>"
            "<td>%.3f</td><td>%.3f</td></tr>\n",
            cuzk__type_name[t], m, cuzk_telemetry_percentile(lat, m, 0.5) / 1e3,
            cuzk_telemetry_percentile(lat, m, 0.9) / 1e3,
            cuzk_telemetry_percentile(lat, m, 0.99) / 1e3, lat[m - 1] / 1e3);
  }
  fprintf(f, "</table>\n");
  /* timelines */
  fprintf(f,
          "<h2>Timelines</h2>\n<p>One row per partition (rows reused when free); each %.0f ms "
          "bin shows the phase that covered most of it. Hover a row for its job and phase "
          "durations. The green strip on top is the GPU-busy fraction of each bin.</p>\n",
          (double)res / 1e3);
  cuzk__legend(f);
  size_t at = 0;
  for (size_t gi = 0; gi < st.n_gpus; gi++) {
    cuzk__timeline(f, &st, &st.gpus[gi], set->recs + at, st.gpus[gi].partitions, res, nbins);
    at += st.gpus[gi].partitions;
  }
  cuzk__gap_hist(f, &st);
  /* H2D bandwidth and pool counters over time */
  cuzk__pt_t *pts = calloc(set->n * 2 + 1, sizeof *pts);
  const char **snames = calloc(st.n_gpus * 2 + 2, sizeof *snames);
  char(*sbuf)[160] = calloc(st.n_gpus * 2 + 2, sizeof *sbuf);
  fprintf(f, "<h2>H2D bandwidth</h2>\n");
  cuzk__pt_t *hp = calloc(st.n_gpus * CUZK__H2D_BUCKETS + 1, sizeof *hp);
  int64_t h2d_b[CUZK__H2D_BUCKETS], h2d_u[CUZK__H2D_BUCKETS];
  int64_t bucket = (st.t1_us - st.t0_us) / CUZK__H2D_BUCKETS + 1;
  if (bucket < res) bucket = res;
  if (pts && snames && sbuf && hp) {
    size_t np = 0;
    at = 0;
    for (size_t gi = 0; gi < st.n_gpus; gi++) {
      snprintf(sbuf[gi], sizeof sbuf[gi], "%s / gpu %d", st.gpus[gi].agent_id,
               (int)st.gpus[gi].gpu);
      snames[gi] = sbuf[gi];
      for (size_t b = 0; b < CUZK__H2D_BUCKETS; b++) h2d_b[b] = h2d_u[b] = 0;
      for (size_t k = at; k < at + st.gpus[gi].partitions; k++) {
        const cuzk_partition_timing_t *r = &set->recs[k];
        if (r->h2d_us <= 0) continue;
        size_t b =
            (size_t)((cuzk__clip64(r->gpu_start_us, st.t0_us, st.t1_us) - st.t0_us) / bucket);
        if (b >= CUZK__H2D_BUCKETS) b = CUZK__H2D_BUCKETS - 1;
        h2d_b[b] += r->h2d_bytes;
        h2d_u[b] += r->h2d_us;
      }
      for (size_t b = 0; b < CUZK__H2D_BUCKETS; b++)
        if (h2d_u[b] > 0)
          hp[np++] = (cuzk__pt_t){st.t0_us + (int64_t)b * bucket + bucket / 2,
                                  (double)h2d_b[b] / (double)h2d_u[b] / 1e3, (int)gi};
      at += st.gpus[gi].partitions;
    }
    if (np) {
      fprintf(f,
              "<p>Bytes copied host to device over copy time per GPU, summed over %.1f s "
              "buckets (by GPU start).</p>\n",
              (double)bucket / 1e6);
      cuzk__plot(f, &st, hp, np, (int)st.n_gpus, snames, cuzk__colors, "GB/s", np > st.n_gpus);
    } else {
      fprintf(f, "<p>No host-to-device copies recorded (CPU backend).</p>\n");
    }
    fprintf(f,
            "<h2>Pinned pool</h2>\n<p>Share of partitions whose a, b, c lived in pinned "
            "buffers, and the pool's cumulative hits and misses as snapshotted at each "
            "partition's synthesis end.</p>\n<table id=\"pinned\"><tr><th class=\"l\">agent / "
            "gpu</th><th>pinned</th><th>pageable</th><th>pinned %%</th><th>last hits</th><th>last "
            "misses</th><th>hit rate %%</th></tr>\n");
    np = 0;
    at = 0;
    for (size_t gi = 0; gi < st.n_gpus; gi++) {
      const cuzk_telemetry_gpu_t *g = &st.gpus[gi];
      int64_t lh = 0, lm = 0, lt = INT64_MIN;
      for (size_t k = at; k < at + g->partitions; k++) {
        const cuzk_partition_timing_t *r = &set->recs[k];
        if (r->synth_end_us >= lt) {
          lt = r->synth_end_us;
          lh = r->pool.hits;
          lm = r->pool.misses;
        }
        pts[np++] = (cuzk__pt_t){r->synth_end_us, (double)r->pool.hits, (int)(2 * gi)};
        pts[np++] = (cuzk__pt_t){r->synth_end_us, (double)r->pool.misses, (int)(2 * gi + 1)};
      }
      snprintf(sbuf[2 * gi], sizeof sbuf[0], "%s / gpu %d hits", g->agent_id, (int)g->gpu);
      snprintf(sbuf[2 * gi + 1], sizeof sbuf[0], "%s / gpu %d misses", g->agent_id, (int)g->gpu);
      snames[2 * gi] = sbuf[2 * gi];
      snames[2 * gi + 1] = sbuf[2 * gi + 1];
      fprintf(f, "<tr><td class=\"l\">");
      cuzk__gpu_label(f, g);
      fprintf(f,
              "</td><td>%zu</td><td>%zu</td><td>%.1f</td><td>%" PRId64 "</td><td>%" PRId64
              "</td><td>%.1f</td></tr>\n",
              g->pinned, g->partitions - g->pinned,
              100.0 * (double)g->pinned / (double)g->partitions, lh, lm,
              lh + lm > 0 ? 100.0 * (double)lh / (double)(lh + lm) : 0.0);
      at += g->partitions;
    }
    fprintf(f, "</table>\n");
    /* points must be in time order for polylines */
    qsort(pts, np, sizeof *pts, cuzk__cmp_pt);
    cuzk__plot(f, &st, pts, np, (int)(2 * st.n_gpus), snames, cuzk__colors, "checkouts", 1);
  }
  free(pts);
  free(hp);
  free(snames);
  free(sbuf);
  free(lat);
  fprintf(f, "<p class=\"lbl\">Generated by cuzk telemetry report.</p>\n</body></html>\n");
  cuzk_telemetry_stats_free(&st);
  if (ferror(f)) {
    snprintf(errstr, errstr_size, "write error");
    return CUZK_ERR_IO;
  }
  return CUZK_OK;
}
