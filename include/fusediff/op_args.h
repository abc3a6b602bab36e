/* op_args.h — the argument lists an operator recorded (Input Dims, Input type, Concrete Inputs)
 * in the compact form the readers keep ("[[4,512],[],\"x\",1.5]": no blanks outside strings).
 *
 * The one parser of these texts: a cursor over a list's entries, each read as a shape (a list
 * of integers), another list (a list of tensors, which can be read with a cursor of its own),
 * a string or another scalar; and a walk over every shape at any depth. Nothing is allocated:
 * entries point into the text they were read from. */
#ifndef FUSEDIFF_OP_ARGS_H
#define FUSEDIFF_OP_ARGS_H

#include <stddef.h>
#include <stdint.h>

#define OP_ARG_DIMS 8 /* the most dimensions of a shape; a longer list is no shape */

enum op_arg_kind {
	OP_ARG_SHAPE,  /* a list of at most OP_ARG_DIMS integers; [] (a scalar's) has none */
	OP_ARG_LIST,   /* any other list: of tensors, too long, or not of integers */
	OP_ARG_STRING, /* "..." */
	OP_ARG_OTHER,  /* a number, true, null, an empty entry */
};

struct op_arg {
	enum op_arg_kind kind;
	int nd; /* OP_ARG_SHAPE: its dimensions */
	int64_t d
		[OP_ARG_DIMS]; /* OP_ARG_SHAPE: the sizes, outermost first (as written: may be < 0) */
	const char *text;      /* the entry as written (borrowed from the text read) */
	size_t len; /* its length: a list's with its brackets, a string's with its quotes */
};

/* A cursor over the entries of one list. */
struct op_args {
	const char *p;
};

/* Start reading the list that text begins with (borrowed: it must outlive the cursor).
 * Returns 0, or -1 when text is NULL or does not begin with '['. */
int op_args_open(struct op_args *c, const char *text);

/* Read the next entry into a. Returns 1; 0 at the list's closing ']'; -1 when the text ends
 * before it (a cut text: the entries before were read). */
int op_args_next(struct op_args *c, struct op_arg *a);

/* A string entry's characters without its quotes, a backslash's escape taken as the character
 * after it, at most cap - 1 of them, NUL-terminated into buf (cap > 0). Empty for any other
 * kind of entry. */
void op_arg_string(const struct op_arg *a, char *buf, size_t cap);

/* Call fn for every shape in the list text begins with, in order, those inside lists of tensors
 * included; stop early when fn returns non-zero. Returns 0, or -1 when text is not a list. */
int op_args_each_shape(const char *text, int (*fn)(const struct op_arg *shape, void *ctx),
		       void *ctx);

#endif
