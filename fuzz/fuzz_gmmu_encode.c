/* SPDX-License-Identifier: MIT */
/* libFuzzer target: libgmmu's value parsing, field writes (both modes), field decode and the
 * P2P model with its driver rows. Input: byte 0 picks format/entry/mode, bytes 1..40 a P2P
 * request (36..38: a BAR1-P2P row, its start, the PEER-field patch), the rest is
 * newline-separated FIELD=VALUE text. Checked invariants: a decoded entry rebuilds itself
 * from its shown fields plus its unexplained bits; a checked write that succeeds reads back;
 * a P2P entry that the model accepts decodes to the requested aperture, address and peer. */
// fuzz-links: gmmu_static
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "p2pscope/bytes.h"
#include "p2pscope/gmmu.h"
#include "p2pscope/nvidia_drivers.h"

static void check_rebuild(const struct gmmu_entry_format *ef, const uint64_t w[2])
{
	struct gmmu_decoded d;
	gmmu_entry_decode(ef, w, &d);
	uint64_t y[2] = {d.unexplained[0], d.unexplained[1]};
	char buf[96];
	for (size_t k = 0; k < ef->n_fields; k++) {
		gmmu_decoded_value_str(&d, k, buf, sizeof(buf));
		if (d.shown[k] &&
		    gmmu_field_set(&ef->fields[k], d.value[k], GMMU_WRITE_CHECKED, y, NULL))
			abort();
	}
	if (y[0] != w[0] || y[1] != (ef->size > 8 ? w[1] : 0))
		abort();
}

static void fuzz_p2p(const struct gmmu_format *f, const uint8_t *p)
{
	static const uint64_t sizes[] = {0,        4096,     1u << 16, 1u << 17,
	                                 1u << 21, 1u << 29, 3000,     1ull << 38};
	struct gmmu_p2p_request rq = {
	        .mode = (enum gmmu_p2p_mode)(p[0] % 4),
	        .peer_index = p2ps_le32(p + 1),
	        .bar1_base = p2ps_le64(p + 5),
	        .fabric_base = p2ps_le64(p + 13),
	        .offset = p2ps_le64(p + 21),
	        .page_size = sizes[p[29] % 8],
	        .kind = p2ps_le32(p + 30),
	        .vol = p[34] & 1,
	        .read_only = p[34] & 2,
	        .privilege = p[34] & 4,
	        .atomic_disable = p[34] & 8,
	        .access_counting = p[34] & 16,
	        .write_mode = (enum gmmu_write_mode)((p[34] >> 5) & 1),
	        .bar1_form = (enum gmmu_bar1_form)(p[35] % 5), /* 4: not a form */
	        .bar1_peer_index = p[35] & 8,
	};
	/* byte 36: a driver row (bit 7 set), byte 37: the static-BAR1 start in 2 MiB, byte 38:
	 * the patched PEER address field */
	if (p[36] & 0x80)
		rq.bar1_row = gmmu_bar1_row_at((p[36] & 0x7f) % gmmu_bar1_row_count());
	rq.bar1_start = (uint64_t)p[37] << 21;
	rq.peer_addr_sysmem = p[38] & 1;
	struct gmmu_p2p_result r;
	struct p2ps_error err;
	if (gmmu_p2p_encode(f, &rq, &r, &err))
		return;
	if (rq.mode == GMMU_P2P_BAR1 && rq.bar1_row) {
		const struct gmmu_bar1_row *row = rq.bar1_row;
		uint64_t start = row->adds_start ? rq.bar1_start : 0;
		if (row->refused || r.aperture != row->aperture ||
		    r.addr != rq.bar1_base + start + rq.offset)
			abort();
		return;
	}
	uint64_t w[2] = {r.pte, 0};
	check_rebuild(f->entry[GMMU_ENTRY_PTE], w);
	if (rq.write_mode != GMMU_WRITE_CHECKED)
		return;
	struct gmmu_pte_view v;
	gmmu_pte_view(f, r.pte, &v);
	bool sysmem_peer = rq.peer_addr_sysmem && rq.mode != GMMU_P2P_BAR1;
	if (!v.valid || (!sysmem_peer && v.addr != r.addr) || v.aperture != r.aperture)
		abort();
	if (rq.mode == GMMU_P2P_BAR1 &&
	    (r.addr != rq.bar1_base + rq.offset ||
	     (rq.bar1_form == GMMU_BAR1_PATCH && v.aperture != GMMU_APERTURE_SYS_NONCOH)))
		abort();
	if (rq.mode != GMMU_P2P_BAR1 &&
	    (v.aperture != GMMU_APERTURE_PEER || (!sysmem_peer && v.peer_index != rq.peer_index)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 41)
		return 0;
	const struct gmmu_format *f = gmmu_format_at(data[0] % gmmu_format_count());
	enum gmmu_entry_type t = (enum gmmu_entry_type)((data[0] >> 3) % GMMU_ENTRY_TYPE_COUNT);
	enum gmmu_write_mode mode = (enum gmmu_write_mode)((data[0] >> 5) & 1);
	const struct gmmu_entry_format *ef = gmmu_format_entry(f, t);
	fuzz_p2p(f, data + 1);

	char *text = malloc(size - 40);
	if (!text)
		return 0;
	memcpy(text, data + 41, size - 41);
	text[size - 41] = '\0';
	uint64_t w[2] = {p2ps_le64(data + 1), p2ps_le64(data + 9)};
	if (ef->size == 8)
		w[1] = 0;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		struct p2ps_error err;
		int rc = gmmu_entry_set(ef, line, eq + 1, mode, w, &err);
		const struct gmmu_field *fd = gmmu_field_find(ef, line);
		if (rc == 0 && mode == GMMU_WRITE_CHECKED && fd) {
			uint64_t v;
			if (gmmu_field_value_parse(fd, eq + 1, &v, NULL))
				abort();
			uint64_t got = fd->kind == GMMU_FIELD_ADDR ? gmmu_field_get_addr(fd, w)
			                                           : gmmu_field_get(fd, w);
			if (got != v)
				abort();
		}
		if (rc && err.msg[0] == '\0')
			abort(); /* every failure explains itself */
	}
	check_rebuild(ef, w);
	free(text);
	return 0;
}
