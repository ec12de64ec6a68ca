/* SPDX-License-Identifier: MIT */
/* Command-line inputs of the fleet summary: files, folders, glob patterns, "-", capture
 * tarballs and snapshot folders, each turned into hosts or skipped entries.
 *
 * JSON files are read by worker threads (one json-c parse per document dominates the
 * cost; every thread fills only its own inputs' batches). Snapshot folders and tarballs
 * go through the caller's snapshot callback on the calling thread, in input order, as the
 * host model is not made for threads. Results are merged in input order, so the output
 * does not depend on the thread count. */
#include "fleet_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <json-c/json.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum item_kind { ITEM_JSON, ITEM_SNAPSHOT, ITEM_TARBALL, ITEM_STDIN };

struct item {
	enum item_kind kind;
	char *path;
	struct fl_batch batch;
};

struct items {
	struct item *v;
	size_t n, cap;
	struct fl_batch problems; /* inputs that are no report at all */
};

#define WALK_DEPTH_MAX 8

static void add_item(struct items *it, enum item_kind kind, const char *path)
{
	if (!p2ps_grow((void **)&it->v, &it->cap, it->n + 1, sizeof(*it->v))) {
		it->problems.oom = true;
		return;
	}
	struct item *x = &it->v[it->n];
	*x = (struct item){.kind = kind, .path = fl_strdup(path, &it->problems.oom)};
	it->n += x->path != NULL;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !strcmp(s + n - m, suffix);
}

static bool is_tarball(const char *name)
{
	static const char *const suffixes[] = {".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.zst"};
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (has_suffix(name, suffixes[i]))
			return true;
	return false;
}

static bool exists_under(const char *dir, const char *rel)
{
	char p[4096];
	struct stat st;
	return snprintf(p, sizeof(p), "%s/%s", dir, rel) < (int)sizeof(p) && stat(p, &st) == 0;
}

/* A capture-host.sh snapshot (unpacked) or any tree bar-inspect --root reads. */
static bool is_snapshot_dir(const char *dir)
{
	return exists_under(dir, "p2pscope/snapshot-info") ||
	       exists_under(dir, "sys/bus/pci/devices");
}

static int no_dotfiles(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static void walk(struct items *it, const char *dir, int depth);

/* One path found in a folder: reports, tarballs and snapshots count; other files (a
 * CSV, a host list) are left alone. Links to folders are not followed (no cycles). */
static void walk_entry(struct items *it, const char *path, const char *name, int depth)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return;
	if (S_ISDIR(st.st_mode)) {
		if (is_snapshot_dir(path))
			add_item(it, ITEM_SNAPSHOT, path);
		else if (depth < WALK_DEPTH_MAX)
			walk(it, path, depth + 1);
		return;
	}
	if (S_ISLNK(st.st_mode) && (stat(path, &st) != 0 || !S_ISREG(st.st_mode)))
		return;
	if (has_suffix(name, ".json"))
		add_item(it, ITEM_JSON, path);
	else if (is_tarball(name))
		add_item(it, ITEM_TARBALL, path);
}

static void walk(struct items *it, const char *dir, int depth)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, no_dotfiles, alphasort);
	if (n < 0) {
		fl_batch_skip(&it->problems, dir, P2PS_FLEET_SKIP_UNREADABLE, "cannot list: %s",
		              strerror(errno));
		return;
	}
	char path[4096];
	for (int i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name) < (int)sizeof(path))
			walk_entry(it, path, list[i]->d_name, depth);
		free(list[i]);
	}
	free(list);
}

/* One existing path named on the command line (or matched by a pattern). */
static void classify(struct items *it, const char *path, const struct stat *st)
{
	if (S_ISDIR(st->st_mode)) {
		if (is_snapshot_dir(path)) {
			add_item(it, ITEM_SNAPSHOT, path);
			return;
		}
		size_t before = it->n;
		walk(it, path, 0);
		if (it->n == before)
			fl_batch_skip(&it->problems, path, P2PS_FLEET_SKIP_EMPTY,
			              "no *.json report, capture tarball or snapshot folder in it");
		return;
	}
	add_item(it, is_tarball(path) ? ITEM_TARBALL : ITEM_JSON, path);
}

static void expand(struct items *it, const char *arg)
{
	struct stat st;
	if (!strcmp(arg, "-")) {
		add_item(it, ITEM_STDIN, "stdin");
		return;
	}
	if (stat(arg, &st) == 0) {
		classify(it, arg, &st);
		return;
	}
	int saved = errno;
	if (!strpbrk(arg, "*?[")) {
		fl_batch_skip(&it->problems, arg, P2PS_FLEET_SKIP_UNREADABLE, "%s",
		              strerror(saved));
		return;
	}
	/* Patterns too long for the shell's command line, or quoted on purpose. */
	glob_t g;
	int rc = glob(arg, 0, NULL, &g);
	if (rc == GLOB_NOMATCH)
		fl_batch_skip(&it->problems, arg, P2PS_FLEET_SKIP_EMPTY,
		              "the pattern matches nothing");
	else if (rc != 0)
		fl_batch_skip(&it->problems, arg, P2PS_FLEET_SKIP_UNREADABLE,
		              "cannot expand the pattern");
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++)
		if (stat(g.gl_pathv[i], &st) == 0)
			classify(it, g.gl_pathv[i], &st);
	if (rc == 0)
		globfree(&g);
}

static void read_json_item(struct fl_reader *r, struct item *x)
{
	size_t len = 0;
	if (!r->tok && !(r->tok = json_tokener_new())) {
		x->batch.oom = true;
		return;
	}
	if (!fl_read_file_into(r, x->kind == ITEM_STDIN ? "/dev/stdin" : x->path, &len)) {
		if (errno == EFBIG)
			fl_batch_skip(
			        &x->batch, x->path, P2PS_FLEET_SKIP_UNREADABLE,
			        "larger than %zu MiB: not a bar-inspect report or a stream of "
			        "them (split it into files, or give their folder)",
			        P2PS_FLEET_INPUT_MAX_BYTES >> 20);
		else
			fl_batch_skip(&x->batch, x->path, P2PS_FLEET_SKIP_UNREADABLE, "%s",
			              strerror(errno));
		return;
	}
	fl_read_stream(&x->batch, r->tok, x->path, r->buf, len);
}

static void reader_free(struct fl_reader *r)
{
	if (r->tok)
		json_tokener_free(r->tok);
	free(r->buf);
}

struct work {
	struct item *items;
	size_t n;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct work *w = arg;
	struct fl_reader r = {0};
	for (;;) {
		size_t i = atomic_fetch_add(&w->next, 1);
		if (i >= w->n)
			break;
		if (w->items[i].kind == ITEM_JSON)
			read_json_item(&r, &w->items[i]);
	}
	reader_free(&r);
	return NULL;
}

/* Reads every JSON file, on up to `threads` threads (this one included). */
static void read_json_items(struct items *it, unsigned threads)
{
	struct work w = {.items = it->v, .n = it->n};
	atomic_init(&w.next, 0);
	if (!threads) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		threads = cpus < 1 ? 1 : cpus > 8 ? 8 : (unsigned)cpus;
	}
	if (threads > it->n / 16 + 1) /* a thread per few files would cost more than it saves */
		threads = (unsigned)(it->n / 16 + 1);
	pthread_t tid[8];
	unsigned started = 0;
	for (unsigned i = 1; i < threads && i < 8; i++)
		if (pthread_create(&tid[started], NULL, worker, &w) == 0)
			started++;
	worker(&w);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}

static void read_snapshot(const struct p2ps_fleet_opts *o, struct fl_batch *b, const char *dir,
                          const char *source)
{
	if (!o->snapshot) {
		fl_batch_skip(b, source, P2PS_FLEET_SKIP_SNAPSHOT,
		              "snapshot folders need bar-inspect's host model (no reader given)");
		return;
	}
	struct json_object *report = NULL;
	struct p2ps_error err = {0};
	if (o->snapshot(o->snapshot_ctx, dir, &report, &err) < 0) {
		fl_batch_skip(b, source, P2PS_FLEET_SKIP_SNAPSHOT, "%s", err.msg);
		return;
	}
	fl_read_report(b, source, report);
	json_object_put(report);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Runs tar to unpack FILE into dir; stderr goes to dir/.tar-errors. Returns tar's exit
 * status, or -1 when it could not run. */
static int run_tar(const char *file, const char *dir)
{
	char errfile[4200];
	snprintf(errfile, sizeof(errfile), "%s/.tar-errors", dir);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char *argv[] = {"tar",
	                "-xf",
	                (char *)file,
	                "-C",
	                (char *)dir,
	                "--no-same-owner",
	                "--no-same-permissions",
	                NULL};
	pid_t pid;
	int rc = posix_spawnp(&pid, "tar", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return -1;
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The snapshot root inside an unpacked tarball: the folder itself or one or two levels
 * down (capture-host.sh packs one top folder). */
static bool find_root(const char *dir, char *out, size_t n, int depth)
{
	if (is_snapshot_dir(dir))
		return snprintf(out, n, "%s", dir) < (int)n;
	struct dirent **list = NULL;
	int k = depth < 2 ? scandir(dir, &list, no_dotfiles, alphasort) : 0;
	bool found = false;
	char sub[4096];
	for (int i = 0; i < k; i++) {
		struct stat st;
		if (!found &&
		    snprintf(sub, sizeof(sub), "%s/%s", dir, list[i]->d_name) < (int)sizeof(sub) &&
		    lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			found = find_root(sub, out, n, depth + 1);
		free(list[i]);
	}
	free(list);
	return found;
}

/* Names tar's failure with the first line tar wrote. */
static void tar_failed(struct fl_batch *b, const char *file, const char *dir, int rc)
{
	char errfile[4200];
	size_t len = 0;
	snprintf(errfile, sizeof(errfile), "%s/.tar-errors", dir);
	char *msg = rc < 0 ? NULL : fl_read_file(errfile, &len);
	if (msg)
		msg[strcspn(msg, "\n")] = '\0';
	if (rc < 0)
		fl_batch_skip(b, file, P2PS_FLEET_SKIP_UNREADABLE, "cannot run tar");
	else
		fl_batch_skip(b, file, P2PS_FLEET_SKIP_UNREADABLE,
		              "tar cannot unpack it (exit %d%s%s)", rc, msg && *msg ? ": " : "",
		              msg ? msg : "");
	free(msg);
}

static void read_tarball(const struct p2ps_fleet_opts *o, struct fl_batch *b, const char *file)
{
	const char *tmpdir = getenv("TMPDIR");
	char dir[4096], root[4096];
	snprintf(dir, sizeof(dir), "%s/p2ps-fleet-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		fl_batch_skip(b, file, P2PS_FLEET_SKIP_UNREADABLE,
		              "cannot make a folder to unpack it: %s", strerror(errno));
		return;
	}
	int rc = run_tar(file, dir);
	if (rc != 0)
		tar_failed(b, file, dir, rc);
	else if (!find_root(dir, root, sizeof(root), 0))
		fl_batch_skip(
		        b, file, P2PS_FLEET_SKIP_NOT_REPORT,
		        "no snapshot in the tarball (expected p2pscope-capture-host's sys/ and "
		        "p2pscope/)");
	else
		read_snapshot(o, b, root, file);
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int p2ps_fleet_add_inputs(struct p2ps_fleet *f, const char *const *inputs, size_t n,
                          struct p2ps_error *err)
{
	struct items it = {0};
	for (size_t i = 0; i < n && !it.problems.oom; i++)
		expand(&it, inputs[i]);
	const struct p2ps_fleet_opts *o = &f->priv->opts;
	read_json_items(&it, o->threads);
	for (size_t i = 0; i < it.n; i++) {
		struct item *x = &it.v[i];
		if (x->kind == ITEM_STDIN) {
			struct fl_reader r = {0};
			read_json_item(&r, x);
			reader_free(&r);
		} else if (x->kind == ITEM_SNAPSHOT)
			read_snapshot(o, &x->batch, x->path, x->path);
		else if (x->kind == ITEM_TARBALL)
			read_tarball(o, &x->batch, x->path);
	}
	bool ok = fl_batch_merge(f, &it.problems);
	for (size_t i = 0; i < it.n; i++) {
		ok = ok && fl_batch_merge(f, &it.v[i].batch);
		fl_batch_free(&it.v[i].batch);
		free(it.v[i].path);
	}
	fl_batch_free(&it.problems);
	free(it.v);
	return ok ? 0 : p2ps_error_set(err, P2PS_ENOMEM, "out of memory reading reports");
}
