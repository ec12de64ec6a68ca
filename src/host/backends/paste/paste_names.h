/* SPDX-License-Identifier: MIT */
/* Names printed by lspci, nvidia-smi and CUDA, turned back into ids (names.c). */
#ifndef P2PS_PASTE_NAMES_H
#define P2PS_PASTE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct p2ps_nvidia_chip;

/* Vendor id for a vendor name at the start of s; *len is the name's length. */
bool pt_vendor_by_name(const char *s, uint16_t *id, size_t *len);

/* Class code (base << 8 | sub) for a class name of exactly len characters. */
bool pt_class_by_name(const char *s, size_t len, uint16_t *code);

/* NVIDIA chip named in s: a chip code ("GA102 [GeForce RTX 3090]") or a board name
 * ("NVIDIA GeForce RTX 5090"); NULL when neither is known. */
const struct p2ps_nvidia_chip *pt_chip_by_name(const char *s);

/* A GPU model as a list writes it, with NVIDIA's product name where a bare GeForce number
 * stands ("2x 4090" -> "NVIDIA GeForce RTX 4090"), into out. */
void pt_gpu_model_name(const char *in, char *out, size_t size);
/* Whether a model name is an NVIDIA GPU's (a brand, RTX/GTX, or a chip-table board). */
bool pt_nvidia_gpu_name(const char *s);

#endif
