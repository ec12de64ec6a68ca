/* SPDX-License-Identifier: MIT */
/* The class of one line: what the block finder sees. Each test looks at a bounded
 * prefix of the line (or scans it once), so classifying a paste is linear. Lines whose
 * meaning depends on the block around them (indented lines, bare numeric rows, blank
 * lines) are decided with the class of that block. */
#include <ctype.h>
#include <string.h>

#include "paste_internal.h"

static bool any_prefix(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pt_starts(s, list[i]))
			return true;
	return false;
}

static bool is_sep(const char *t)
{
	char ch = t[0];
	if (ch != '-' && ch != '*' && ch != '_' && ch != '=')
		return false;
	size_t n = strspn(t, (char[]){ch, '\0'});
	return n >= 2 && !t[n];
}

static bool is_ellipsis(const char *t)
{
	static const char *const marks[] = {"[...]", "...",        "[excerpt",   "<snip>", "[snip",
	                                    "(...)", "[remaining", "[truncated", "…"};
	if (!any_prefix(t, marks, sizeof(marks) / sizeof(marks[0])))
		return false;
	/* "..." alone or a bracketed note; not a sentence that starts with dots. */
	return t[0] != '.' || !t[3] || t[3] == ' ';
}

/* Lines about the output rather than output: what nvidia-bug-report.sh writes about the
 * file or log it appends ("*** ls: -r--r--r-- 1 root root 0 ... /proc/cmdline", "
 * journalctl -b -0:"), and sudo's password prompt between a command and its output. */
static bool is_meta(const char *t)
{
	size_t n = strlen(t);
	return pt_starts(t, "*** ls: ") || (pt_starts(t, "journalctl -b ") && t[n - 1] == ':') ||
	       pt_starts(t, "[sudo] password for ");
}

/* "[  12.345678] ", "Sep 21 09:59:59 host kernel: ", "2024-05-01T10:00:00+0000 host kernel: ",
 * or a line starting with a kernel tag as users copy them without timestamps. */
static bool is_kernel(const char *s, enum pt_class prev)
{
	if (s[0] == '[') {
		const char *p = pt_skip_ws(s + 1);
		long v;
		if (pt_dec(p, &v, &p) && *p == '.' && pt_dec(p + 1, &v, &p) && *p == ']')
			return true;
	}
	const char *k = strstr(s, " kernel: ");
	if (k && k - s < 80 && isalnum((unsigned char)s[0]))
		return true;
	static const char *const tags[] = {
	        "NVRM: ", "nvidia-nvlink: ", "pci 0000:", "pci_bus 0",       "AMD-Vi: ",
	        "DMAR: ", "DMAR-IR: ",       "iommu: ",   "nvidia-modeset: "};
	if (any_prefix(s, tags, sizeof(tags) / sizeof(tags[0])))
		return true;
	struct p2ps_bdf b;
	if (pt_starts(s, "nvidia ") && pt_bdf(s + 7, &b, NULL, NULL))
		return true; /* "nvidia 0000:07:00.0: AMD-Vi: ..." */
	/* An assertion's source location printed on its own line after it. */
	if (prev == PT_KERNEL) {
		const char *c = strstr(s, ".c:");
		return c && c - s < 64 && isdigit((unsigned char)c[3]) && !strchr(s, ' ');
	}
	return false;
}

static bool is_hex_row(const char *s)
{
	size_t n = 0;
	while (n < 4 && isxdigit((unsigned char)s[n]))
		n++;
	if (n < 2 || s[n] != ':')
		return false;
	const char *p = s + n + 1;
	int bytes = 0;
	while (p[0] == ' ' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
		bytes++;
		p += 3;
	}
	return bytes >= 1 && !*pt_skip_ws(p);
}

/* "[DDDD:]BB:DD.F[/BB:DD.F...] Class text: ..." */
static bool is_lspci_dev(const char *s, enum pt_class prev)
{
	const char *t = pt_skip_ws(s);
	if (t != s && prev != PT_IOMMU && prev != PT_LSPCI_DEV && prev != PT_LSPCI_DETAIL)
		return false;
	struct p2ps_bdf b;
	const char *p;
	if (!pt_bdf(t, &b, NULL, &p))
		return false;
	while (*p == '/' && pt_bdf(p + 1, &b, NULL, &p))
		;
	if (*p != ' ')
		return false;
	const char *colon = strstr(p, ": ");
	return colon && colon - p < 80;
}

static bool is_tree(const char *s)
{
	const char *t = pt_skip_ws(s);
	if (pt_starts(t, "-[") || pt_starts(t, "-+-[") || pt_starts(t, "+-[") ||
	    pt_starts(t, "\\-[") || pt_starts(t, "+-") || pt_starts(t, "\\-"))
		return strstr(t, "-[") || isxdigit((unsigned char)t[2]);
	if (t[0] != '|')
		return false;
	t = pt_skip_ws(t + 1);
	return !*t || pt_starts(t, "+-") || pt_starts(t, "\\-") || t[0] == '|';
}

static bool is_iommu(const char *t)
{
	if (pt_starts(t, "/sys/kernel/iommu_groups"))
		return true;
	if (pt_starts(t, "IOMMU Group ") || pt_starts(t, "IOMMU group "))
		return isdigit((unsigned char)t[12]);
	return false;
}

/* A run's summary line of a P2P sample: "simpleP2P : Failed (code 1)". */
/* TensorFlow's DMA row ("I ...gpu_init.cc:136] 0:   Y Y N N"): a device, a colon and
 * one Y or N per device, however many blanks stand between them. */
static bool tf_dma_row(const char *t)
{
	const char *r = strstr(t, "] ");
	r = pt_skip_ws(r ? r + 2 : t);
	size_t n = strspn(r, "0123456789");
	if (!n || r[n] != ':')
		return false;
	r = pt_skip_ws(r + n + 1);
	return (*r == 'Y' || *r == 'N') && strspn(r, "YN \t") == strlen(r);
}

static bool p2p_sample_result(const char *t)
{
	const char *p = pt_starts(t, "simpleP2P")                 ? t + 9
	                : pt_starts(t, "p2pBandwidthLatencyTest") ? t + 23
	                                                          : NULL;
	if (!p)
		return false;
	p = pt_skip_ws(p);
	return *p == ':' && (strstr(p, "Passed") || strstr(p, "Failed") || strstr(p, "Waived"));
}

/* "0 1008.06   6.34": a device number, then two or more figures with decimals, as the
 * rows of p2pBandwidthLatencyTest's bandwidth and latency matrices print. */
static bool matrix_row(const char *t)
{
	const char *p;
	long dev;
	int figures = 0;
	if (!isdigit((unsigned char)t[0]) || !pt_dec(t, &dev, &p) || dev > P2PS_PASTE_MAX_GPUS ||
	    (*p != ' ' && *p != '\t'))
		return false;
	while (*(p = pt_skip_ws(p))) {
		size_t n = strspn(p, "0123456789.");
		const char *dot = memchr(p, '.', n);
		if (!n || !dot || dot == p || dot + 1 == p + n ||
		    (p[n] && p[n] != ' ' && p[n] != '\t'))
			return false;
		figures++;
		p += n;
	}
	return figures >= 2;
}

static bool is_cuda(const char *t, enum pt_class prev)
{
	static const char *const marks[] = {
	        "[P2P (Peer-to-Peer)",
	        "Device: ",
	        "Device=",
	        "P2P Connectivity Matrix",
	        "Unidirectional P2P=",
	        "Bidirectional P2P=",
	        "P2P=Disabled",
	        "P2P=Enabled",
	        "***NOTE:",
	        "So you can see lesser",
	        "> Peer access from",
	        "> Peer-to-Peer (P2P) access from",
	        "Peer access from",
	        "Peer-to-Peer (P2P) access from",
	        "Checking GPU(s) for support",
	        "Checking for multiple GPUs",
	        "CUDA-capable device count",
	        "Enabling peer access",
	        "Allocating buffers",
	        "Creating event handles",
	        "cudaMemcpyPeer / cudaMemcpy",
	        "Preparing host buffer",
	        "Run kernel on GPU",
	        "Copy data back to host",
	        "Verification error @",
	        "Disabling peer access",
	        "Shutting down",
	        "Test passed",
	        "Test failed",
	        "Test FAILED",
	        "[./simpleP2P]",
	        "[simpleP2P]",
	        "[p2pBandwidthLatencyTest]",
	        "Peer to Peer access is not available",
	        "Two or more GPUs with",
	        "NOTE: The CUDA Samples are not meant",
	        "# nThread",
	        "#  Rank",
	        "# Rank",
	        "# Avg bus bandwidth",
	        "# Out of bounds values",
	        "# Using devices",
	        "memcpy CE GPU(row)",
	        "memcpy SM GPU(row)",
	        "Running device_to_device",
	        "SUM device_to_device",
	};
	if (any_prefix(t, marks, sizeof(marks) / sizeof(marks[0])))
		return true;
	/* nccl-tests with the '#' markdown took away, or older ones ("#   Rank  0 Pid"). */
	const char *u = t[0] == '#' ? pt_skip_ws(t + 1) : t;
	static const char *const nccl_tests[] = {
	        "nThread ",      "Rank ",        "Using devices",      "Avg bus bandwidth",
	        "Out of bounds", "out-of-place", "size         count", "(B)"};
	if (pt_nccl_tests_header(u))
		return true;
	if (any_prefix(u, nccl_tests, sizeof(nccl_tests) / sizeof(nccl_tests[0])) &&
	    (u != t || !pt_starts(u, "Rank ") || strstr(u, " device ")))
		return true;
	/* A matrix title run into the text before it, or cut at its start. */
	if ((strstr(t, "P2P=Disabled") || strstr(t, "P2P=Enabled")) &&
	    (strstr(t, "Bandwidth") || strstr(t, "Latency")))
		return true;
	/* What other tools print about peer access: TensorFlow's log, Python's queries,
	 * nvbandwidth, a run's summary of the samples. */
	if (strstr(t, "peer access from device ordinal ") || strstr(t, "] DMA: ") ||
	    strstr(t, "StreamExecutor with strength ") || strstr(t, "-> physical GPU (device: ") ||
	    strstr(t, "core/common_runtime/gpu/gpu_") || /* TensorFlow's GPU set-up log */
	    strstr(t, "DeviceCanAccessPeer(") || strstr(t, "can_device_access_peer(") ||
	    pt_starts(t, "nvbandwidth Version") || pt_starts(t, "Waiving device_to_device") ||
	    p2p_sample_result(t))
		return true;
	/* A matrix header whose title the paste lost ("   D\D     0      1"). */
	if (pt_starts(t, "D\\D") && (t[3] == ' ' || t[3] == '\t'))
		return true;
	/* A row of the sample's matrices whose title and header the excerpt cut off. */
	if (matrix_row(t))
		return true;
	/* A device list's line naming an NVIDIA board by its CUDA ordinal: nvbandwidth's
	 * "Device 0: NVIDIA A100-SXM4-80GB (00000000:34:00)". */
	if (pt_starts(t, "Device ") && isdigit((unsigned char)t[7]) && strstr(t, ": NVIDIA "))
		return true;
	/* nccl-tests' result rows ("8  2  float  sum  -1 ..."), also where NCCL's log ran
	 * between them and the header. */
	if (pt_nccl_tests_row(t))
		return true;
	/* simpleP2P: "GPU0 = \"Tesla K80\" IS  capable of Peer-to-Peer (P2P)". */
	if (pt_starts(t, "GPU") && isdigit((unsigned char)t[3]) && strstr(t, "capable of Peer"))
		return true;
	if (prev != PT_CUDA)
		return false;
	if (!strcmp(t, "#")) /* nccl-tests' empty comment between its header lines */
		return true;
	/* A Python session's answer and what it printed before it; nvbandwidth's devices;
	 * TensorFlow's DMA rows ("...] 0:   Y Y N N"). */
	if (!strcmp(t, "True") || !strcmp(t, "False") || pt_starts(t, "print(") ||
	    pt_starts(t, "cudaError_t.") || (pt_starts(t, "Device ") && strchr(t, ':')) ||
	    tf_dma_row(t))
		return true;
	if (pt_nccl_tests_row(t))
		return true;
	/* Matrix headers and rows of the sample: "D\D 0 1", "GPU 0 1", "CPU 0 1", "0 2.07 14.31".
	 */
	if (pt_starts(t, "D\\D") ||
	    ((pt_starts(t, "GPU") || pt_starts(t, "CPU")) && (t[3] == ' ' || t[3] == '\t')))
		return true;
	/* nvbandwidth's rows: a GPU's own cell is "N/A" ("0  N/A  26.34"). */
	return strspn(t, "0123456789. \t") == strlen(t) ||
	       (isdigit((unsigned char)t[0]) && strstr(t, "N/A") &&
	        strspn(t, "0123456789. \tN/A") == strlen(t));
}

/* A token "GPUn" (n digits) at t, followed by white space or the end. */
static bool gpu_token(const char *t)
{
	if (!pt_starts(t, "GPU") || !isdigit((unsigned char)t[3]))
		return false;
	size_t n = 3 + strspn(t + 3, "0123456789");
	return !t[n] || t[n] == ' ' || t[n] == '\t';
}

static bool is_topo_header(const char *s)
{
	const char *t = pt_skip_ws(s);
	if (!gpu_token(t))
		return false;
	if (t != s)
		return true;
	/* Unindented: "GPU0 GPU1 ..." with no cells between the labels. */
	const char *p = pt_skip_ws(t + 3 + strspn(t + 3, "0123456789"));
	return gpu_token(p);
}

static bool is_topo_row(const char *t)
{
	return gpu_token(t);
}

static bool is_legend(const char *t, enum pt_class prev)
{
	if (pt_starts(t, "Legend:"))
		return true;
	if (prev != PT_TOPO_ROW && prev != PT_TOPO_HEADER && prev != PT_LEGEND)
		return false;
	size_t n = strspn(t, "ABCDEFGHIJKLMNOPQRSTUVWXYZ#");
	return n && strstr(t + n, "= ") && strstr(t + n, "= ") - (t + n) < 8;
}

static bool is_smi_q(const char *s, enum pt_class prev)
{
	const char *t = pt_skip_ws(s);
	static const char *const marks[] = {"==============NVSMI LOG", "Driver Version ",
	                                    "Attached GPUs ",          "BAR1 Memory Usage",
	                                    "FB Memory Usage",         "CUDA Version "};
	if (any_prefix(t, marks, sizeof(marks) / sizeof(marks[0])))
		return true;
	struct p2ps_bdf b;
	if (pt_starts(s, "GPU ") && pt_bdf(s + 4, &b, NULL, NULL))
		return true;
	if (prev != PT_SMI_Q)
		return false;
	/* Inside -q: indented "Key : value" lines, section names, grep's "--". */
	return t != s || strstr(t, " : ") || !strcmp(t, "--");
}

static bool is_cmdline(const char *t)
{
	if (pt_starts(t, "BOOT_IMAGE=") || pt_starts(t, "initrd="))
		return true;
	int tokens = 0, eq = 0;
	bool key = false;
	static const char *const keys[] = {
	        "root=", "console=",     "iommu=",  "intel_iommu=", "amd_iommu=",
	        "pci=",  "mitigations=", "rdinit=", "init="};
	for (const char *p = t; *p;) {
		const char *e = p + strcspn(p, " ");
		tokens++;
		const char *q = memchr(p, '=', (size_t)(e - p));
		eq += q != NULL;
		if (q && q > p && q[-1] == ':')
			return false;
		key |= any_prefix(p, keys, sizeof(keys) / sizeof(keys[0]));
		p = *e ? e + 1 : e;
	}
	return key && tokens >= 3 && eq * 2 >= tokens && isalpha((unsigned char)t[0]);
}

/* An lspci detail line: indented inside an lspci block, or a capability line pasted on
 * its own ("BAR 1: current size: 256MB", "LnkSta: ..."). */
/* lspci's keys of a device's detail lines, for a page that took their indentation away. */
static bool lspci_key(const char *t)
{
	static const char *const keys[] = {"Subsystem:",
	                                   "Physical Slot:",
	                                   "Control:",
	                                   "Status:",
	                                   "Latency:",
	                                   "Interrupt:",
	                                   "NUMA node:",
	                                   "IOMMU group:",
	                                   "Expansion ROM",
	                                   "Kernel modules:",
	                                   "Bus:",
	                                   "I/O behind",
	                                   "Memory behind",
	                                   "Prefetchable memory behind",
	                                   "Secondary status:",
	                                   "BridgeCtl:",
	                                   "DevCap:",
	                                   "DevCtl:",
	                                   "DevSta:",
	                                   "LnkCtl:",
	                                   "SltCap:",
	                                   "SltCtl:",
	                                   "SltSta:",
	                                   "RootCap:",
	                                   "RootCtl:",
	                                   "RootSta:",
	                                   "DevCap2:",
	                                   "DevCtl2:",
	                                   "LnkCap2:",
	                                   "LnkCtl2:",
	                                   "LnkSta2:",
	                                   "Address:",
	                                   "Vector table:",
	                                   "PBA:"};
	return any_prefix(t, keys, sizeof(keys) / sizeof(keys[0]));
}

static bool is_lspci_detail(const char *s, enum pt_class prev)
{
	const char *t = pt_skip_ws(s);
	bool in_device = prev == PT_LSPCI_DEV || prev == PT_LSPCI_DETAIL || prev == PT_HEX;
	if (in_device && (t != s || lspci_key(t)))
		return true;
	static const char *const marks[] = {
	        "BAR ",       "Region ",  "LnkSta:",         "LnkCap:",
	        "ACSCtl:",    "ACSCap:",  "Capabilities: [", "Kernel driver in use:",
	        "Memory at ", "Express ("};
	if (!any_prefix(t, marks, sizeof(marks) / sizeof(marks[0])))
		return false;
	return !pt_starts(t, "BAR ") || strstr(t, "current size:");
}

static bool is_nccl(const char *t)
{
	if (pt_starts(t, "NCCL version ") || pt_nccl_bare(t))
		return true;
	const char *m = strstr(t, "NCCL ");
	return m && (pt_starts(m + 5, "INFO") || pt_starts(m + 5, "WARN")) && m - t < 120;
}

/* Plain nvidia-smi: its frame, header and rows. */
static bool is_smi_table(const char *t, enum pt_class prev)
{
	if (t[0] == '|' && strstr(t, "NVIDIA-SMI"))
		return true;
	if (t[0] == '+' && (t[1] == '-' || t[1] == '=')) {
		size_t n = strspn(t, "+-=");
		return n >= 20 && !t[n];
	}
	if (t[0] != '|')
		return false;
	if (prev == PT_SMI_TABLE)
		return true;
	/* A GPU row without the header: "|   0  NAME  Off | 00000000:01:00.0 Off |". */
	const char *b = strchr(t + 1, '|');
	struct p2ps_bdf bdf;
	return b && pt_bdf(pt_skip_ws(b + 1), &bdf, NULL, NULL);
}

static bool is_gpu_list(const char *t, enum pt_class prev)
{
	static const char *const marks[] = {
	        "PyTorch version:",
	        "Collecting environment information",
	        "Is debug build:",
	        "CUDA used to build PyTorch:",
	        "Is CUDA available:",
	        "CUDA runtime version:",
	        "GPU models and configuration:",
	        "Nvidia driver version:",
	        "cuDNN version:",
	        "Versions of relevant libraries:",
	};
	if (any_prefix(t, marks, sizeof(marks) / sizeof(marks[0])))
		return true;
	if (pt_gpu_list_line(t, NULL, NULL, 0) || pt_is_query_header(t) || pt_is_query_row(t))
		return true;
	if (prev != PT_GPU_LIST)
		return false;
	const char *colon = strchr(t, ':');
	return (colon && colon - t < 48 && (colon[1] == ' ' || !colon[1])) || t[0] == '[';
}

/* NCCL's XML topology: its <system> line, then any element line inside the block. */
static bool is_nccl_topo(const char *t, enum pt_class prev)
{
	if (pt_starts(t, "<system ") || pt_starts(t, "<system>"))
		return true;
	return prev == PT_NCCL_TOPO && t[0] == '<' && t[1] != '<';
}

enum pt_class pt_classify(const char *s, enum pt_class prev)
{
	const char *t = pt_skip_ws(s);
	if (!*t)
		return PT_BLANK;
	if (is_nccl_topo(t, prev))
		return PT_NCCL_TOPO;
	if (pt_starts(t, "```") || pt_starts(t, "~~~"))
		return PT_FENCE;
	if (is_sep(t))
		return (!strcmp(t, "--") && (prev == PT_SMI_Q || prev == PT_KERNEL)) ? prev
		                                                                     : PT_SEP;
	if (is_ellipsis(t))
		return PT_ELLIPSIS;
	if (is_meta(t))
		return PT_META;
	if (pt_command(s))
		return PT_COMMAND;
	if (prev == PT_MODULES && pt_is_module_line(t))
		return PT_MODULES;
	if (is_nccl(t))
		return PT_NCCL;
	if (pt_error_symptom(t) >= 0)
		return PT_ERROR;
	if (is_smi_table(t, prev))
		return PT_SMI_TABLE;
	if (is_kernel(s, prev))
		return PT_KERNEL;
	if (t == s && is_hex_row(s))
		return PT_HEX;
	if (is_lspci_dev(s, prev))
		return PT_LSPCI_DEV;
	if (is_tree(s))
		return PT_TREE;
	if (is_iommu(t))
		return PT_IOMMU;
	if (is_cuda(t, prev))
		return PT_CUDA;
	if (is_topo_header(s))
		return PT_TOPO_HEADER;
	if (is_topo_row(t))
		return PT_TOPO_ROW;
	if (is_legend(t, prev))
		return PT_LEGEND;
	if (is_gpu_list(t, prev))
		return PT_GPU_LIST;
	if (prev == PT_ENV && pt_is_env(s, prev))
		return PT_ENV;
	if (pt_is_module_header(t) || (prev == PT_MODULES && pt_is_module_line(t)))
		return PT_MODULES;
	if (is_smi_q(s, prev))
		return PT_SMI_Q;
	if (is_cmdline(t))
		return PT_CMDLINE;
	if (is_lspci_detail(s, prev))
		return PT_LSPCI_DETAIL;
	if (pt_is_env(s, prev))
		return PT_ENV;
	if (prev == PT_IOMMU && t != s)
		return PT_IOMMU; /* an IOMMU listing's indented detail lines */
	return PT_TEXT;
}
