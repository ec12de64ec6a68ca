/* SPDX-License-Identifier: MIT */
/* Three small syntaxes: the plain nvidia-smi table (its header's driver version; per GPU
 * the index, name, bus id, display and memory total), raw setpci reads of the ACS
 * control register ("setpci -s 02:00.0 ECAP_ACS+6.w" printing "001d"), and the GPU list
 * of PyTorch's collect_env or `nvidia-smi -L` ("GPU 0: NVIDIA GeForce RTX 4090") with
 * collect_env's driver version. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paste_internal.h"

static void set_driver(struct pctx *c, const char *v, int line)
{
	struct p2ps_paste_host *h = &c->p->host;
	size_t n = strcspn(v, " \t|");
	char version[sizeof(h->driver_version)];
	if (!n || n >= sizeof(version))
		return;
	snprintf(version, sizeof(version), "%.*s", (int)n, v);
	pt_release(c, P2PS_SW_DRIVER, version, line);
	if (h->driver_version[0])
		return;
	snprintf(h->driver_version, sizeof(h->driver_version), "%s", version);
	h->driver_from = pt_where(c, line);
}

/* ---- nvidia-smi's table ------------------------------------------------------------ */

struct table_state {
	struct p2ps_paste_gpu *last; /* the GPU whose second row may follow */
	int gpus;
	bool processes;
};

/* "|   0  NVIDIA GeForce RTX 4090     Off |   00000000:01:00.0  On |   Off |" */
static bool gpu_row(struct pctx *c, struct table_state *st, const char *t)
{
	const char *c1 = t + 1, *bar = strchr(c1, '|');
	long idx;
	const char *p = pt_skip_ws(c1), *e;
	if (!bar || !pt_dec(p, &idx, &e) || (*e != ' ' && *e != '\t') || idx >= P2PS_PASTE_MAX_GPUS)
		return false;
	const char *b = pt_skip_ws(bar + 1);
	struct p2ps_bdf bdf;
	if (!pt_bdf(b, &bdf, NULL, &p))
		return false;
	struct p2ps_paste_gpu *g = pt_gpu_bdf(c, &bdf);
	if (!g)
		return false;
	if (g->smi < 0)
		g->smi = (int)idx;
	/* The name, less the persistence mode at the end of the cell. */
	const char *name = pt_skip_ws(e);
	size_t n = (size_t)(bar - name);
	while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
		n--;
	if (n > 3 && !strncmp(name + n - 3, " On", 3))
		n -= 3;
	else if (n > 4 && !strncmp(name + n - 4, " Off", 4))
		n -= 4;
	while (n && name[n - 1] == ' ')
		n--;
	if (!g->name[0])
		snprintf(g->name, sizeof(g->name), "%.*s", (int)n, name);
	p = pt_skip_ws(p);
	if (pt_starts(p, "On"))
		g->display = 1;
	else if (pt_starts(p, "Off"))
		g->display = 0;
	st->last = g;
	st->gpus++;
	return true;
}

/* "| 30%   35C    P8    20W / 350W |    300MiB / 24576MiB |" : the memory total. */
static void memory_row(struct pctx *c, struct table_state *st, const char *t, int line)
{
	const char *m = strstr(t, "MiB / ");
	long mib;
	if (!st->last || !m || !pt_dec(m + 6, &mib, NULL))
		return;
	struct p2ps_paste_gpu *g = st->last;
	if (g->vram_known)
		return;
	g->vram_known = true;
	g->vram = (uint64_t)mib << 20;
	g->vram_from = pt_where(c, line);
	st->last = NULL;
}

void pt_parse_smi_table(struct pctx *c, const struct pl_span *sp)
{
	struct table_state st = {0};
	struct pl_iter it;
	struct pl_line l;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom) {
		const char *t = pt_skip_ws(l.s), *v;
		if (strstr(t, "Processes:"))
			st.processes = true;
		if ((v = strstr(t, "Driver Version:")) != NULL)
			set_driver(c, pt_skip_ws(v + 15), l.no);
		else if ((v = strstr(t, "KMD Version:")) != NULL) /* newer nvidia-smi's header */
			set_driver(c, pt_skip_ws(v + 12), l.no);
		if (st.processes || t[0] != '|')
			continue;
		if (!gpu_row(c, &st, t))
			memory_row(c, &st, t, l.no);
	}
	if (!st.gpus && !c->p->host.driver_version[0] && !c->p->host.driver_from.line) {
		c->p->unread_blocks++;
		pt_summary(c, "recognised, not understood: an nvidia-smi table without GPU rows");
		return;
	}
	pt_summary(c, "nvidia-smi table: %d GPU%s%s%s", st.gpus, st.gpus == 1 ? "" : "s",
	           c->p->host.driver_version[0] ? ", driver " : "", c->p->host.driver_version);
}

/* ---- setpci ----------------------------------------------------------------------- */

/* Whether a setpci command reads the ACS control register (ECAP_ACS+6.w, ECAP0d+6.w). */
static bool acs_ctl_read(const char *cmd)
{
	char low[128];
	size_t n = 0;
	for (; cmd[n] && n + 1 < sizeof(low); n++)
		low[n] = (char)tolower((unsigned char)cmd[n]);
	low[n] = '\0';
	const char *p = strstr(low, "ecap_acs+");
	if (!p)
		p = strstr(low, "ecap0d+");
	if (!p)
		return false;
	p = strchr(p, '+') + 1;
	if (pt_starts(p, "0x"))
		p += 2;
	return pt_starts(p, "6.w") && !strchr(p, '=');
}

static void acs_value(struct pctx *c, const struct p2ps_bdf *b, uint64_t v, const char *t, int line)
{
	if (b) {
		struct p2ps_paste_dev *pd = pt_dev(c, b);
		if (!pd)
			return;
		pd->d.acs.present = true;
		pd->d.acs.ctl = (uint16_t)v;
		pd->d.acs.cap = (uint16_t)v; /* a control bit set is a capability present */
		pd->from[P2PS_PD_ACS] = pt_where(c, line);
		return;
	}
	struct p2ps_paste_acs_loose *a = &c->p->acs_loose;
	if (!a->lines++) {
		a->first = pt_where(c, line);
		snprintf(a->first_text, sizeof(a->first_text), "setpci: %s", t);
	}
	a->redirect += (v & 0x0c) != 0; /* ReqRedir (bit 2), CmpltRedir (bit 3) */
}

/* Where PLX (Broadcom) PEX 87xx switch ports carry their ACS capability: 0xf24, as the
 * lspci of a PEX 8747 in an nvidia-bug-report shows ("Capabilities: [f24] Access Control
 * Services", github eler/git_examples nvidia-bug-report.log; tests/fixtures/bugreport). */
#define PLX_ACS_CAP 0xf24u

/* A raw offset ("f2a.w") is the ACS control register where the paste's lspci shows the
 * device's ACS capability 6 bytes below it, or where the command reads PLX switch ports
 * (grep'd by name, or -d 10b5:) at the PLX ACS capability's control register. */
static bool raw_acs_ctl(struct pctx *c, const char *cmd, const struct p2ps_bdf *slot)
{
	const char *p = strstr(cmd, "-s ");
	if (!p)
		return false;
	p = strchr(pt_skip_ws(p + 3), ' ');
	uint64_t off;
	const char *e;
	if (!p || !pt_hex(pt_skip_ws(p), &off, &e) || strncmp(e, ".w", 2) || e[2] == '=')
		return false;
	char low[128];
	size_t n = 0;
	for (; cmd[n] && n + 1 < sizeof(low); n++)
		low[n] = (char)tolower((unsigned char)cmd[n]);
	low[n] = '\0';
	if ((strstr(low, "plx") || strstr(low, "10b5")) && off == PLX_ACS_CAP + 6)
		return true;
	const struct p2ps_paste_dev *pd = slot ? p2ps_paste_find_dev(c->p, slot) : NULL;
	return pd && pd->d.acs.present && pd->d.acs.offset && pd->d.acs.offset + 6u == off;
}

void pt_parse_setpci(struct pctx *c, const struct pl_span *sp)
{
	const char *cmd = c->block >= 0 ? c->p->blocks[c->block].command : "";
	char slot[32] = "";
	struct p2ps_bdf sb;
	bool have_slot =
	        pt_command_opt(cmd, "-s", slot, sizeof(slot)) && pt_bdf(slot, &sb, NULL, NULL);
	bool acs = acs_ctl_read(cmd) || raw_acs_ctl(c, cmd, have_slot ? &sb : NULL);
	int named = 0;
	struct pl_iter it;
	struct pl_line l;
	int values = 0;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l)) {
		const char *t = pt_skip_ws(l.s), *p = t;
		struct p2ps_bdf b;
		bool addr = pt_bdf(t, &b, NULL, &p);
		if (addr)
			p = pt_skip_ws(p + (*p == ':'));
		uint64_t v;
		if (!pt_hex(p, &v, NULL) || v > 0xffff)
			continue;
		values++;
		named += addr || have_slot;
		if (acs)
			acs_value(c, addr ? &b : (have_slot ? &sb : NULL), v, t, l.no);
	}
	if (!acs) {
		c->p->unread_blocks++;
		pt_summary(c,
		           "recognised, not understood: %d setpci value%s of a register the paste "
		           "does not name (ECAP_ACS+6.w names the ACS control register; lspci -vvv "
		           "shows where the capability sits)",
		           values, values == 1 ? "" : "s");
		return;
	}
	pt_summary(c, "%d ACS control value%s, %d of a named device", values,
	           values == 1 ? "" : "s", named);
}

/* ---- nvidia-smi --query-gpu=... --format=csv --------------------------------------- */

/* The fields of a query's CSV a GPU's identity comes from; others are skipped. */
enum csv_field { CSV_OTHER = 0, CSV_INDEX, CSV_NAME, CSV_BUS, CSV_MEMORY, CSV_DISPLAY };

static enum csv_field csv_field_named(const char *f, size_t n)
{
	static const struct {
		const char *name;
		enum csv_field k;
	} rows[] = {{"index", CSV_INDEX},           {"name", CSV_NAME},
	            {"gpu_name", CSV_NAME},         {"pci.bus_id", CSV_BUS},
	            {"gpu_bus_id", CSV_BUS},        {"memory.total", CSV_MEMORY},
	            {"display_active", CSV_DISPLAY}};
	size_t k = strcspn(f, " [");
	if (k > n)
		k = n;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strlen(rows[i].name) == k && !strncmp(f, rows[i].name, k))
			return rows[i].k;
	return CSV_OTHER;
}

/* Whether t is a query's CSV header: comma-separated field names ("index, pci.bus_id,
 * name, memory.total [MiB]"), one of them naming the GPU. */
bool pt_is_query_header(const char *t)
{
	int fields = 0, named = 0;
	for (const char *p = t; *p;) {
		p = pt_skip_ws(p);
		size_t n = strcspn(p, ",");
		size_t w = strspn(p, "abcdefghijklmnopqrstuvwxyz_.");
		if (!w || (w < n && p[w] != ' ' && p[w] != '['))
			return false;
		named += csv_field_named(p, n) != CSV_OTHER;
		fields++;
		p += n + (p[n] == ',');
	}
	return fields >= 2 && named >= 1;
}

/* The kind of a headerless CSV value, by its look: "0", "00000000:03:00.0", "24564 MiB",
 * "NVIDIA GeForce RTX 4090", "Enabled". */
static enum csv_field csv_value_kind(const char *v, size_t n)
{
	struct p2ps_bdf b;
	const char *e;
	if (pt_bdf(v, &b, NULL, &e) && (size_t)(e - v) == n)
		return CSV_BUS;
	if (strspn(v, "0123456789") == n)
		return CSV_INDEX;
	if (n > 4 && !strncmp(v + n - 4, " MiB", 4))
		return CSV_MEMORY;
	static const char *const makers[] = {"NVIDIA", "Tesla", "Quadro", "GeForce", "TITAN"};
	for (size_t i = 0; i < sizeof(makers) / sizeof(makers[0]); i++)
		if (pt_starts(v, makers[i]))
			return CSV_NAME;
	return CSV_OTHER;
}

/* Whether t is a row of a query's CSV without its header: an index, a GPU's name and its
 * bus id among its values ("0, NVIDIA RTX PRO 6000 ..., 00000000:03:00.0"). */
bool pt_is_query_row(const char *t)
{
	bool seen[CSV_DISPLAY + 1] = {false};
	for (const char *p = t; *p;) {
		p = pt_skip_ws(p);
		size_t n = strcspn(p, ",");
		size_t m = n;
		while (m && p[m - 1] == ' ')
			m--;
		seen[csv_value_kind(p, m)] = true;
		p += n + (p[n] == ',');
	}
	return seen[CSV_NAME] && (seen[CSV_BUS] || seen[CSV_INDEX]);
}

/* One row: the GPU it names (by bus id, else by index) and its name, memory, display. */
static bool query_row(struct pctx *c, const enum csv_field *cols, int n_cols, const char *t,
                      int line)
{
	const char *val[16];
	size_t len[16];
	int n = 0;
	for (const char *p = t; *p && n < 16;) {
		p = pt_skip_ws(p);
		size_t k = strcspn(p, ",");
		val[n] = p;
		len[n] = k;
		while (len[n] && p[len[n] - 1] == ' ')
			len[n]--;
		n++;
		p += k + (p[k] == ',');
	}
	long idx = -1, mib = -1;
	struct p2ps_bdf bdf;
	bool bus = false;
	const char *name = NULL;
	size_t name_len = 0;
	int display = -1;
	for (int i = 0; i < n; i++) {
		enum csv_field k = n_cols ? (i < n_cols ? cols[i] : CSV_OTHER)
		                          : csv_value_kind(val[i], len[i]);
		if (k == CSV_INDEX)
			pt_dec(val[i], &idx, NULL);
		else if (k == CSV_BUS)
			bus = pt_bdf(val[i], &bdf, NULL, NULL);
		else if (k == CSV_MEMORY)
			pt_dec(val[i], &mib, NULL);
		else if (k == CSV_NAME) {
			name = val[i];
			name_len = len[i];
		} else if (k == CSV_DISPLAY)
			display = pt_starts(val[i], "Enabled")    ? 1
			          : pt_starts(val[i], "Disabled") ? 0
			                                          : -1;
	}
	if (idx >= P2PS_PASTE_MAX_GPUS || (!bus && idx < 0))
		return false;
	struct p2ps_paste_gpu *g = bus ? pt_gpu_bdf(c, &bdf) : pt_gpu_smi(c, (int)idx);
	if (!g)
		return false;
	if (g->smi < 0 && idx >= 0)
		g->smi = (int)idx;
	if (name && !g->name[0])
		snprintf(g->name, sizeof(g->name), "%.*s", (int)name_len, name);
	if (!g->named_from.line)
		g->named_from = pt_where(c, line);
	if (mib > 0 && !g->vram_known) {
		g->vram_known = true;
		g->vram = (uint64_t)mib << 20;
		g->vram_from = pt_where(c, line);
	}
	if (display >= 0)
		g->display = display;
	return true;
}

/* ---- collect_env / nvidia-smi -L --------------------------------------------------- */

/* "GPU 0: NVIDIA GeForce RTX 4090 (UUID: ...)" (nvidia-smi -L, collect_env) or "GPU
 * 0,1,2,3: NVIDIA GeForce RTX 4090" (vLLM's collect_env): the indices (into idx, at most
 * max) and where the name starts; the count, 0 when t is no such line. */
int pt_gpu_list_line(const char *t, int *idx, const char **name, int max)
{
	const char *p = t + 4;
	long v;
	int n = 0;
	if (!pt_starts(t, "GPU "))
		return 0;
	for (;;) {
		if (!pt_dec(p, &v, &p) || v >= P2PS_PASTE_MAX_GPUS)
			return 0;
		if (idx && n < max)
			idx[n] = (int)v;
		n++;
		if (*p != ',')
			break;
		p++;
	}
	if (p[0] != ':' || p[1] != ' ' || !isalpha((unsigned char)pt_skip_ws(p + 1)[0]))
		return 0;
	if (name)
		*name = pt_skip_ws(p + 1);
	return n;
}

void pt_parse_gpu_list(struct pctx *c, const struct pl_span *sp)
{
	struct pl_iter it;
	struct pl_line l;
	int gpus = 0;
	enum csv_field cols[16];
	int n_cols = 0;
	pl_iter_init(&it, sp);
	while (pl_next(&it, &l) && !c->oom) {
		const char *t = pt_skip_ws(l.s), *p;
		int idx[P2PS_PASTE_MAX_GPUS], n;
		if (pt_is_query_header(t)) {
			n_cols = 0;
			for (const char *q = t; *q && n_cols < 16;) {
				q = pt_skip_ws(q);
				size_t k = strcspn(q, ",");
				cols[n_cols++] = csv_field_named(q, k);
				q += k + (q[k] == ',');
			}
			continue;
		}
		if (strchr(t, ',') && (n_cols || pt_is_query_row(t)) &&
		    !pt_gpu_list_line(t, NULL, NULL, 0)) {
			gpus += query_row(c, cols, n_cols, t, l.no);
			continue;
		}
		if (pt_starts(t, "Nvidia driver version:")) {
			set_driver(c, pt_skip_ws(t + 22), l.no);
			continue;
		}
		if (pt_starts(t, "GPU models and configuration:"))
			t = pt_skip_ws(t + 29); /* the first GPU on the key's own line */
		if (!(n = pt_gpu_list_line(t, idx, &p, P2PS_PASTE_MAX_GPUS)))
			continue;
		size_t len = strcspn(p, "(");
		while (len && p[len - 1] == ' ')
			len--;
		for (int k = 0; k < n && k < P2PS_PASTE_MAX_GPUS; k++) {
			struct p2ps_paste_gpu *g = pt_gpu_smi(c, idx[k]);
			if (!g)
				continue;
			if (!g->name[0])
				snprintf(g->name, sizeof(g->name), "%.*s", (int)len, p);
			if (!g->named_from.line)
				g->named_from = pt_where(c, l.no);
			gpus++;
		}
	}
	bool cpu = pt_parse_cpu_lines(c, sp); /* its "CPU:" section is lscpu's output */
	if (!gpus && !c->p->host.driver_from.line && !cpu) {
		c->p->unread_blocks++;
		pt_summary(c, "recognised, not understood: collect_env lines with no GPU list, "
		              "driver version or CPU");
		return;
	}
	pt_summary(c, "%d GPU%s listed%s%s%s", gpus, gpus == 1 ? "" : "s",
	           c->p->host.driver_version[0] ? ", driver " : "", c->p->host.driver_version,
	           cpu ? ", the CPU" : "");
}
