#!/bin/sh
# The man page: mandoc finds nothing wrong with it, and it documents exactly the options
# the program has (the option table in src/main.c, as printed by --help).
set -u
command -v mandoc >/dev/null 2>&1 || { echo "mandoc not installed"; exit 77; }
man=man/fusediff.1
fail=0

lint=$(mandoc -Tlint -Wwarning "$man" 2>&1 | grep -v 'mandoc.db')
if [ -n "$lint" ]; then
	echo "mandoc -Tlint:"
	echo "$lint"
	fail=1
fi

# Long options in --help, and in the OPTIONS section's .It lines. (--help printed once, kept in
# $help for the short options too)
help=$("$FUSEDIFF" --help)
code=$(printf '%s\n' "$help" | grep -Eo -- '--[a-z][a-z-]*' | sort -u)
doc=$(sed -n '/^\.Sh OPTIONS/,/^\.Sh /p' "$man" | grep '^\.It' | grep -Eo 'Fl -[a-z][a-z-]*' |
	sed 's/^Fl /-/' | sort -u)
if [ "$code" != "$doc" ]; then
	echo "options in --help but not in the man page:"
	printf '%s\n' "$code" | grep -Fxv -f /dev/fd/3 3<<EOF2
$doc
EOF2
	echo "options in the man page but not in --help:"
	printf '%s\n' "$doc" | grep -Fxv -f /dev/fd/3 3<<EOF2
$code
EOF2
	fail=1
fi
# Short options too.
code=$(printf '%s\n' "$help" | grep -Eo -- '^ +-[a-zA-Z],' | tr -d ' ,' | sort -u)
doc=$(sed -n '/^\.Sh OPTIONS/,/^\.Sh /p' "$man" | grep '^\.It Fl [a-zA-Z] ' | awk '{print "-" $3}' | sort -u)
if [ "$code" != "$doc" ]; then
	echo "short options differ: --help has [$code], the man page has [$doc]"
	fail=1
fi

section() { # section NAME: the man page's section NAME, up to the next .Sh
	sed -n "/^\.Sh $1\$/,/^\.Sh /p" "$man"
}

# ENVIRONMENT names exactly the variables the program reads.
code=$(grep -rhoE 'getenv\("[A-Za-z_][A-Za-z0-9_]*"\)' src | sed 's/getenv("//; s/")//' | sort -u)
doc=$(section ENVIRONMENT | sed -n 's/^\.It Ev \([A-Za-z0-9_]*\).*/\1/p' | sort -u)
if [ "$code" != "$doc" ]; then
	echo "environment variables differ: src/ reads [$(echo $code)], ENVIRONMENT has [$(echo $doc)]"
	fail=1
fi

# The --script commands the program knows (it lists them when it meets an unknown one) are the
# ones --script describes.
A=examples/llama8l_compiled_sdpa.json.gz
known=$(printf ':no-such-command\n' | "$FUSEDIFF" --headless --script - "$A" "$A" 2>&1 >/dev/null |
	sed -n 's/.*unknown command .* (\(.*\))$/\1/p' | tr -d ' ' | tr ',' '\n' | sort -u)
doc=$(sed -n '/^\.It Fl -script/,/^\.It Fl /p' "$man" | grep '^\.It ' | grep -o 'Cm :[a-z]*' | sed 's/^Cm ://' |
	sort -u)
if [ -z "$known" ]; then
	echo "an unknown --script command no longer lists the known ones"
	fail=1
elif [ "$known" != "$doc" ]; then
	echo "--script commands differ: the program knows [$(echo $known)], the man page has [$(echo $doc)]"
	fail=1
fi

# The EXAMPLES work: each literal block is run as a shell script (without the "$ " prompts) in a
# scratch directory where the trace names it uses are the bundled examples. Blocks that open the
# explorer in a terminal, or need a tool that is missing (jq), are not run.
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/run"
ln -s "$FUSEDIFF" "$tmp/bin/fusediff"
ln -s "$PWD/examples" "$tmp/run/examples"
ln -s "$PWD/examples/llama8l_eager_sdpa.json.gz" "$tmp/run/eager.json.gz"
ln -s "$PWD/examples/llama8l_compiled_sdpa.json.gz" "$tmp/run/compiled.json.gz"
ln -s "$PWD/examples/llama8l_eager_sdpa.json.gz" "$tmp/run/trace.json.gz"
ln -s "$PWD/$(ls examples/*mi300x*.json.gz | head -n 1)" "$tmp/run/amd.json.gz"
ln -s "$PWD/$(ls examples/*b300*.json.gz | head -n 1)" "$tmp/run/nv.json.gz"
printf 'GEMM gemm ^my_gemm_\n' >"$tmp/run/my.rules"
section EXAMPLES | awk -v dir="$tmp" '
	/^\.Bd -literal/ { n++; f = dir "/example." n; next }
	/^\.Ed/ { close(f); f = ""; next }
	f { gsub(/\\e/, "\\"); sub(/^\$ /, ""); print > f }
'
n=0
for ex in "$tmp"/example.*; do
	[ -f "$ex" ] || continue
	n=$((n + 1))
	if grep -q '^fusediff ' "$ex" && ! grep -Eq -- '--(report|summary|headless)' "$ex"; then
		continue # the explorer in a terminal
	fi
	if grep -q '^jq ' "$ex" && ! command -v jq >/dev/null 2>&1; then
		continue
	fi
	(cd "$tmp/run" && PATH="$tmp/bin:$PATH" XDG_CONFIG_HOME=/nonexistent sh -e "$ex") >"$ex.out" 2>&1 ||
		{ echo "EXAMPLES: this fails:"; cat "$ex"; tail -n 5 "$ex.out"; fail=1; }
done
[ $n -ge 5 ] || { echo "EXAMPLES: only $n literal blocks found"; fail=1; }
[ -s "$tmp/run/fusions.screen" ] || { echo "EXAMPLES: the --script example wrote no fusions.screen"; fail=1; }

# Every member of the JSON report is described in REPORT FORMATS.
# (the JSON report of the eager and compiled examples: the one the EXAMPLES wrote, cmp.json,
# where they did; a run of its own cost 0.1 s of CPU)
if [ -s "$tmp/run/cmp.json" ]; then
	keys=$(grep -o '"[a-z_]*":' "$tmp/run/cmp.json" | tr -d '":' | sort -u)
else
	keys=$("$FUSEDIFF" --report json examples/llama8l_eager_sdpa.json.gz "$A" | grep -o '"[a-z_]*":' | tr -d '":' | sort -u)
fi
# (one awk over the section for every member, with grep -E's expression: a grep per member
# was 150 processes)
missing=$(section 'REPORT FORMATS' | awk -v keys="$keys" '
	BEGIN { n = split(keys, k, "\n") }
	{
		for (i = 1; i <= n; i++)
			if (!found[i] && $0 ~ ("^\\.[A-Za-z ]*Li( |.*[ {\",])" k[i] "([ \",:]|$)"))
				found[i] = 1
	}
	END { for (i = 1; i <= n; i++) if (!found[i]) print k[i] }')
for k in $missing; do
	echo "JSON member '$k' is not described in REPORT FORMATS"
	fail=1
done
exit $fail
