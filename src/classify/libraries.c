/* libraries.c — library namespaces out of the text the name rules see (classify_int.h). A
 * library's name is no evidence of what its kernels do: "fbgemm_gpu::permute_2D_lengths_kernel"
 * is a permute, "grouped_gemm::utils::transpose" a transpose. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "classify_int.h"

static int is_ident(int ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

/* The library whose name is text[0..len), or -1. */
static int library_named(const char *text, size_t len)
{
	for (size_t i = 0; i < classify_n_libraries; i++)
		if (strlen(classify_libraries[i].ns) == len &&
		    memcmp(classify_libraries[i].ns, text, len) == 0)
			return (int)i;
	return -1;
}

/* 1 when library lib has a family table or a family of its own: the one that selects. */
static int has_family(int lib)
{
	return classify_libraries[lib].n_rules || classify_libraries[lib].default_cls < CLASS_COUNT;
}

/* Remove n bytes at p from the string p is in. */
static void cut(char *p, size_t n)
{
	memmove(p, p + n, strlen(p + n) + 1);
}

/* The length of the namespace part after n bytes at offset off are cut. */
static size_t shrink(size_t ns_len, size_t off, size_t n)
{
	if (off >= ns_len)
		return ns_len;
	return ns_len - off > n ? ns_len - n : off;
}

static int strip_mangled(char *text)
{
	int first = -1;

	for (char *p = text; *p;) {
		size_t len = 0;
		char *q = p;
		int lib;

		if (!isdigit((unsigned char)*p) || (p > text && isdigit((unsigned char)p[-1]))) {
			p++;
			continue;
		}
		while (isdigit((unsigned char)*q) && len < 4096)
			len = len * 10 + (size_t)(*q++ - '0');
		if (strnlen(q, len) == len && (lib = library_named(q, len)) >= 0) {
			if (first < 0 && has_family(lib))
				first = lib;
			cut(p, (size_t)(q - p) + len);
			continue;
		}
		p = q;
	}
	return first;
}

int libraries_strip(char *text, size_t ns_len)
{
	int first = -1, in_ns = -1;

	if (strncmp(text, "_Z", 2) == 0)
		return strip_mangled(text);
	for (char *p = text; *p;) {
		size_t len = 0;
		int lib;

		if (!is_ident(*p) || (p > text && is_ident(p[-1]))) {
			p++;
			continue;
		}
		while (is_ident(p[len]))
			len++;
		if (p[len] == ':' && p[len + 1] == ':' && (lib = library_named(p, len)) >= 0) {
			if (has_family(lib) && (size_t)(p - text) < ns_len && in_ns < 0)
				in_ns = lib;
			if (has_family(lib) && first < 0)
				first = lib;
			ns_len = shrink(ns_len, (size_t)(p - text), len + 2);
			cut(p, len + 2);
			continue;
		}
		p += len;
	}
	return in_ns >= 0 ? in_ns : first;
}
