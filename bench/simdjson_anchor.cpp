// simdjson_anchor.cpp — the anchor for fusediff's loader: simdjson On-Demand doing the kernel
// aggregation of `fusediff --summary` (count and total duration per kernel name, the top ones
// printed) over a plain Kineto trace, streamed through one reused window like fusediff's.
//
//   bench/simdjson_anchor [-w WINDOW_MIB] FILE.json
//
// The file is read with read() into an 8 MiB window (by default). Each window is cut before
// the last event that starts in it (Kineto writes every event on a line of its own that starts
// with "\n  {"; at the end of the input, before the "\n  ]" that closes traceEvents), the
// complete events are wrapped in '[' ... ']' in place and iterated with On-Demand; the cut-off
// part moves to the front of the window for the next round. Only "cat", "name" and "dur" are
// read: simdjson's stage 1 validates the structure and UTF-8 of every byte, On-Demand the
// values it touches. A lower bound, not a drop-in loader: it knows the layout of Kineto's
// writer and nothing else. Built by bench/loader.py when libsimdjson-dev is installed:
//
//   g++ -O2 -std=c++17 -o bench/gen/simdjson_anchor bench/simdjson_anchor.cpp -lsimdjson
//
// With -a (every field), the aggregation is the same, but each event's members are walked one
// by one as fusediff's loader walks them: every key, every value found and its raw text taken
// (a container's whole text), and for the events of the categories fusediff keeps (all but
// ac2g, overhead, python_function and the like) every member of args too. Nothing is
// converted or kept: the cost of reading what a loader has to read, with simdjson.
#include <fcntl.h>
#include <simdjson.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

using namespace simdjson;

struct agg {
	long long count = 0;
	double dur = 0;
};

static const char *find_last(const char *s, size_t n, const char *pat, size_t m)
{
	if (n < m)
		return nullptr;
	for (size_t i = n - m + 1; i-- > 0;)
		if (s[i] == pat[0] && memcmp(s + i, pat, m) == 0)
			return s + i;
	return nullptr;
}

// The raw text of a value: a scalar's token, a container's whole text.
static error_code raw_of(ondemand::value &v, std::string_view &raw)
{
	ondemand::json_type t;
	error_code e;

	if ((e = v.type().get(t)))
		return e;
	if (t == ondemand::json_type::object) {
		ondemand::object o;
		if ((e = v.get_object().get(o)))
			return e;
		return o.raw_json().get(raw);
	}
	if (t == ondemand::json_type::array) {
		ondemand::array a;
		if ((e = v.get_array().get(a)))
			return e;
		return a.raw_json().get(raw);
	}
	raw = v.raw_json_token();
	return SUCCESS;
}

static bool kept_category(std::string_view cat)
{
	return cat != "ac2g" && cat != "overhead" && cat != "python_function" && cat != "Trace" &&
	       cat != "fwdbwd";
}

// -a: every member of the event (and of args, for the categories kept), as described above.
static error_code walk_event(ondemand::object &ev, std::string_view &cat, std::string_view &name,
			     double &dur, size_t &bytes)
{
	error_code err;

	cat = name = std::string_view();
	dur = 0;
	for (auto f : ev) {
		ondemand::raw_json_string k;
		std::string_view key, raw;

		if ((err = f.key().get(k)))
			return err;
		key = std::string_view(k.raw(), strcspn(k.raw(), "\""));
		ondemand::value v = f.value();
		if (key == "cat" || key == "name") {
			if ((err = v.get_string().get(key == "cat" ? cat : name)))
				return err;
		} else if (key == "dur") {
			if ((err = v.get_double().get(dur)))
				return err;
		} else if (key == "args" && kept_category(cat)) {
			ondemand::object a;

			if ((err = v.get_object().get(a)))
				return err;
			for (auto g : a) {
				ondemand::raw_json_string k2;

				if ((err = g.key().get(k2)))
					return err;
				ondemand::value v2 = g.value();
				if ((err = raw_of(v2, raw)))
					return err;
				bytes += raw.size();
			}
		} else {
			if ((err = raw_of(v, raw)))
				return err;
			bytes += raw.size();
		}
	}
	return SUCCESS;
}

int main(int argc, char **argv)
{
	size_t win = 8u << 20, bytes = 0;
	int ai = 1;
	bool every = false;

	for (; ai < argc && argv[ai][0] == '-'; ai++) {
		if (strcmp(argv[ai], "-a") == 0) {
			every = true;
		} else if (strcmp(argv[ai], "-w") == 0 && ai + 1 < argc) {
			win = (size_t)atoi(argv[++ai]) << 20;
		} else {
			break;
		}
	}
	if (ai >= argc) {
		fprintf(stderr, "usage: simdjson_anchor [-a] [-w MIB] FILE.json\n");
		return 2;
	}
	int fd = open(argv[ai], O_RDONLY);
	if (fd < 0) {
		perror(argv[ai]);
		return 1;
	}
	// one byte before the window for '[', padding after it for simdjson
	std::vector<char> mem(1 + win + SIMDJSON_PADDING);
	char *buf = mem.data() + 1;
	size_t len = 0, start = 0;
	bool in_events = false, eof = false;
	long long events = 0, kernels = 0;
	std::unordered_map<std::string, agg> by_name;
	std::string key;
	ondemand::parser parser(win + 2);

	while (!eof) {
		ssize_t n;

		while (len < win && (n = read(fd, buf + len, win - len)) > 0)
			len += (size_t)n;
		if (len < win)
			eof = true;
		if (!in_events) {
			const char *te = (const char *)memmem(buf, len, "\"traceEvents\"", 13);
			const char *br = te ? (const char *)memchr(te, '[', len - (te - buf)) : nullptr;

			if (!br) {
				fprintf(stderr, "no traceEvents in the first window\n");
				return 1;
			}
			start = (size_t)(br - buf) + 1;
			in_events = true;
		}
		const char *cut = eof ? find_last(buf + start, len - start, "\n  ]", 4)
				      : find_last(buf + start, len - start, "\n  {", 4);
		if (!cut || cut == buf + start) {
			fprintf(stderr, "an event longer than the window\n");
			return 1;
		}
		size_t c = (size_t)(cut - buf), close = c;
		while (close > start && buf[close - 1] != ',' && buf[close - 1] != '}')
			close--;
		// "[" over the byte before the first event, "]" over the comma after the last one
		char saved_open = buf[start - 1], saved_close = buf[close - 1];
		if (buf[close - 1] == '}') { // the last event of the array: no comma to overwrite
			saved_close = buf[close];
			buf[close] = ']';
			close++;
		} else {
			buf[close - 1] = ']';
		}
		buf[start - 1] = '[';
		ondemand::document doc;
		auto err = parser.iterate(buf + start - 1, close - (start - 1),
					  win + SIMDJSON_PADDING - (start - 1)).get(doc);
		if (err) {
			fprintf(stderr, "simdjson: %s\n", error_message(err));
			return 1;
		}
		ondemand::array arr;
		if ((err = doc.get_array().get(arr))) {
			fprintf(stderr, "simdjson: %s\n", error_message(err));
			return 1;
		}
		for (auto el : arr) {
			ondemand::object ev;
			std::string_view cat, name;
			double dur = 0;

			if ((err = el.get_object().get(ev))) {
				fprintf(stderr, "simdjson: %s\n", error_message(err));
				return 1;
			}
			events++;
			if (every) {
				if ((err = walk_event(ev, cat, name, dur, bytes))) {
					fprintf(stderr, "simdjson: %s\n", error_message(err));
					return 1;
				}
				if (cat != "kernel")
					continue;
				key.assign(name.data(), name.size());
				agg &a = by_name[key];
				a.count++;
				a.dur += dur;
				kernels++;
				continue;
			}
			if (ev.find_field_unordered("cat").get_string().get(cat) || cat != "kernel")
				continue;
			if (ev.find_field_unordered("name").get_string().get(name))
				continue;
			key.assign(name.data(), name.size());
			if (ev.find_field_unordered("dur").get_double().get(dur))
				continue;
			agg &a = by_name[key];
			a.count++;
			a.dur += dur;
			kernels++;
		}
		buf[start - 1] = saved_open;
		(void)saved_close;
		// the rest moves to the front; the byte before it takes the '['
		memmove(buf + 1, buf + c, len - c);
		len = len - c + 1;
		start = 1;
	}
	close(fd);
	std::vector<std::pair<std::string, agg>> top(by_name.begin(), by_name.end());
	std::sort(top.begin(), top.end(),
		  [](const auto &a, const auto &b) { return a.second.dur > b.second.dur; });
	printf("%lld events, %lld kernels, %zu kernel names\n", events, kernels, top.size());
	if (every)
		printf("%zu bytes of raw values read\n", bytes);
	for (size_t i = 0; i < top.size() && i < 5; i++)
		printf("%12.3f us %8lld  %.60s\n", top[i].second.dur, top[i].second.count,
		       top[i].first.c_str());
	return 0;
}
