/* merge.c — the kernels of one pass on several streams merged into one execution order
 * (structure.h): each stream's kernels grouped into steps (steps.c), then the steps merged
 * without ever splitting one, so that a side-stream kernel never lands inside a run or between
 * a GEMM and its splitKreduce. */
#include <stdlib.h>
#include <string.h>

#include "fusediff/bigmem.h"
#include "structure_int.h"

struct stream_count {
	int32_t stream;
	uint32_t count, rank, at;
};

struct sref {
	int64_t launch; /* CPU time of the launch of the step's first kernel; 0 when merging by
			   GPU time */
	int64_t start;
	uint32_t rank, idx;
};

static int cmp_sref(const void *pa, const void *pb)
{
	const struct sref *x = pa, *y = pb;
	int r;

	if ((r = CMP(x->launch, y->launch)) || (r = CMP(x->start, y->start)) ||
	    (r = CMP(x->rank, y->rank)))
		return r;
	return CMP(x->idx, y->idx);
}

static int cmp_stream_id(const void *pa, const void *pb)
{
	const struct stream_count *x = pa, *y = pb;

	return CMP(x->stream, y->stream);
}

static int cmp_stream_rank(const void *pa, const void *pb)
{
	const struct stream_count *x = pa, *y = pb;
	int r = CMP(y->count, x->count);

	return r ? r : CMP(x->stream, y->stream);
}

DEFINE_LOWER_BOUND(stream_lower, struct stream_count, int32_t, stream)

static struct stream_count *find_stream(struct stream_count *v, size_t n, int32_t stream)
{
	size_t lo = stream_lower(v, n, stream);

	return lo < n && v[lo].stream == stream ? &v[lo] : NULL;
}

/* The streams of the pass's kernels k[0..n) into m->streams, sorted by id, each with its
 * kernel count, its rank (most kernels first) and where its kernels start when regrouped by
 * rank: one sort of the pass's stream ids (a trace may have a stream per kernel). Returns how
 * many. */
static size_t count_streams(struct stream_merge *m, const struct trace *t, const uint32_t *k,
			    size_t n)
{
	size_t ns_streams = 0;

	{
		struct stream_count *ids = xmalloc((n + 1) * sizeof *ids);

		for (size_t i = 0; i < n; i++)
			ids[i] = (struct stream_count){ t->kernels[k[i]].stream, 1, 0, 0 };
		qsort(ids, n, sizeof *ids, cmp_stream_id);
		for (size_t i = 0; i < n; i++) {
			if (ns_streams && m->streams[ns_streams - 1].stream == ids[i].stream) {
				m->streams[ns_streams - 1].count++;
				continue;
			}
			VEC_RESERVE(m->streams, ns_streams, m->cap_streams);
			m->streams[ns_streams++] = ids[i];
		}
		free(ids);
	}
	{
		struct stream_count *byrank = xmalloc(ns_streams * sizeof *byrank);
		uint32_t at = 0;

		memcpy(byrank, m->streams, ns_streams * sizeof *byrank);
		qsort(byrank, ns_streams, sizeof *byrank, cmp_stream_rank);
		for (size_t r = 0; r < ns_streams; r++) {
			struct stream_count *sc =
				find_stream(m->streams, ns_streams, byrank[r].stream);

			sc->rank = (uint32_t)r;
			sc->at = at;
			at += sc->count;
		}
		free(byrank);
	}
	return ns_streams;
}

void merge_streams(struct stream_merge *m, const struct step_input *in, struct side *s,
		   const uint32_t *k, size_t n)
{
	const struct trace *t = s->t;
	size_t ns_streams = count_streams(m, t, k, n), n_tmp = 0;
	int all_launched = 1;

	/* regroup by stream (stable: time order within a stream), then steps per stream */
	{
		uint32_t *fill = xmalloc(ns_streams * sizeof *fill);
		struct stream_count *byrank = xmalloc(ns_streams * sizeof *byrank);
		const struct stream_count *sc = NULL;

		for (size_t r = 0; r < ns_streams; r++) {
			fill[m->streams[r].rank] = m->streams[r].at;
			byrank[m->streams[r].rank] = m->streams[r];
		}
		for (size_t i = 0; i < n; i++) {
			int32_t st = t->kernels[k[i]].stream;

			if (!sc || sc->stream != st)
				sc = find_stream(m->streams, ns_streams, st);
			m->seq[fill[sc->rank]++] = k[i];
		}
		for (size_t r = 0; r < ns_streams; r++) {
			size_t got = steps_group(in, m->seq + byrank[r].at, byrank[r].count,
						 m->tmp + n_tmp);

			for (size_t j = 0; j < got; j++) {
				struct step *st = &m->tmp[n_tmp + j];
				const struct trace_kernel *k0;

				st->first += byrank[r].at;
				k0 = &t->kernels[m->seq[st->first]];
				all_launched &= k0->launch >= 0;
				m->refs[n_tmp + j] =
					(struct sref){ k0->launch >= 0 ? k0->launch : 0, k0->start,
						       (uint32_t)r, (uint32_t)(n_tmp + j) };
			}
			n_tmp += got;
		}
		free(fill);
		free(byrank);
	}
	/* merge the streams' steps: a step is never split, so a side-stream kernel never lands
	 * inside a run or between a GEMM and its splitKreduce. In launch order (then GPU start:
	 * the kernels of one graph launch) when every step has its launch event: the order the
	 * program issued the work in, whatever the GPU overlapped; else by GPU start. */
	if (ns_streams > 1) {
		if (!all_launched)
			for (size_t j = 0; j < n_tmp; j++)
				m->refs[j].launch = 0;
		qsort(m->refs, n_tmp, sizeof *m->refs, cmp_sref);
	}
	for (size_t j = 0; j < n_tmp; j++) {
		struct step st = m->tmp[m->refs[j].idx];
		uint32_t from = st.first;

		st.first = (uint32_t)s->n_order;
		for (uint32_t i = 0; i < st.n; i++)
			s->order[s->n_order++] = m->seq[from + i];
		s->steps[s->n_steps++] = st;
	}
}

void stream_merge_init(struct stream_merge *m, size_t n)
{
	memset(m, 0, sizeof *m);
	m->seq = xmalloc((n ? n : 1) * sizeof *m->seq);
	m->tmp = xmalloc((n ? n : 1) * sizeof *m->tmp);
	m->refs = xmalloc((n ? n : 1) * sizeof *m->refs);
}

void stream_merge_free(struct stream_merge *m)
{
	free(m->seq);
	free(m->tmp);
	free(m->refs);
	free(m->streams);
}
